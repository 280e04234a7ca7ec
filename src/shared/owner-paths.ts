// Where the owner API lives over HTTP. Kept free of zod so the UI bundle need not carry it.
export const OWNER_API_PREFIX = '/api/owner/';
export const OWNER_EVENTS_PATH = '/api/owner/events';
export const OWNER_LOGIN_PATH = '/login';
export const OWNER_COOKIE = 'perch_owner';
/** Header every owner POST must carry (a cross-site form cannot set it). */
export const OWNER_CSRF_HEADER = 'x-perch-owner';
