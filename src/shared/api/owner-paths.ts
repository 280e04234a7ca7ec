// Where the owner API lives over HTTP. Kept free of zod so the UI bundle need not carry it.
export const OWNER_API_PREFIX = '/api/owner/';
export const OWNER_EVENTS_PATH = '/api/owner/events';
/** The one-time login link: `/login#token=…` (the token stays in the fragment, which is never sent to a server). */
export const OWNER_LOGIN_PATH = '/login';
/** POST {token} (a one-time login token) → {session, expires_at}: the session token the page keeps in its own storage. */
export const OWNER_SESSION_PATH = '/api/owner/session';
/** POST with the session as bearer: ends that session. */
export const OWNER_LOGOUT_PATH = '/api/owner/logout';
/** Where the browser UI keeps its session token (web storage is per origin, port included). */
export const OWNER_SESSION_STORAGE_KEY = 'perch.owner.session';

/** POST {conversations?, agent?, since?} with the owner session: the answer is a Perch archive (perch export) to download. */
export const OWNER_EXPORT_PATH = '/api/owner/archive/export';
