/**
 * What a client_id says of itself, read by the OAuth server (which fetches the document it
 * names, src/auth/oauth/client-metadata.ts) and by the pages (which show where an application
 * lives); neither imports the other.
 */

/** A client_id that names a metadata document: https with a path (the draft requires one). */
export const isMetadataClientId = (clientId: string) => {
  if (!clientId.startsWith('https://')) return false;
  try {
    const url = new URL(clientId);
    return url.pathname !== '/' && !url.hash && !url.username && !url.password;
  } catch {
    return false;
  }
};
