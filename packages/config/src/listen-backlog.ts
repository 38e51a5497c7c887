// The accept queue the intake asks listen(2) for: a crowd of WebSockets and keep-alive pools arriving within a
// second. Here so the intake (apps/intake/src/listen-backlog.ts, which warns when the kernel caps it) and the
// bench (which tells a reader how to lift the cap before a flash sale) name one number.
export const INTAKE_LISTEN_BACKLOG = 16_384;
