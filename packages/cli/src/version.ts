/** The CLI's version, kept equal to the package version by a test; sent as the client's `clientInfo.version`. */
export const VERSION = '0.1.0';
