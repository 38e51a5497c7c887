import { loadConfigOrExit } from "@floodgate/config";

export const config = loadConfigOrExit();
