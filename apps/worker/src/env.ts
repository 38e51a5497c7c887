// The worker's configuration, parsed once at import; a bad value exits with a message naming it.
import { loadConfigOrExit } from "@floodgate/config";

export const config = loadConfigOrExit();
