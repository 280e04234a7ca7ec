export const PERCH_VERSION = '0.1.0';
