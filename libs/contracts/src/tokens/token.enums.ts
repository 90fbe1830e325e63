export const TOKEN_STATES = ['UNKNOWN', 'VALID', 'EXPIRED'] as const;
export type TokenState = (typeof TOKEN_STATES)[number];
/** Wire numbers of the states; there is no 2. */
export const TOKEN_STATE_NUMBERS: Record<number, TokenState> = { 0: 'UNKNOWN', 1: 'VALID', 3: 'EXPIRED' };

export const TOKEN_TYPES = ['NORMAL', 'JWT'] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];
export const TOKEN_TYPE_NUMBERS: Record<number, TokenType> = { 0: 'NORMAL', 1: 'JWT' };

export const GET_RESPONSE_FORMATS = [
  'GET_RSP_FORMAT_DEFAULT',
  'GET_RSP_FORMAT_FOR_CREATE',
  'GET_RSP_FORMAT_FOR_REPLACE',
  'GET_RSP_FORMAT_STATUS',
  'GET_RSP_FORMAT_READ',
  'GET_RSP_FORMAT_REFERRING_OBJECTS',
  'GET_RSP_FORMAT_BROKEN_REFERENCES',
] as const;
export type GetResponseFormat = (typeof GET_RESPONSE_FORMATS)[number];
export const GET_RESPONSE_FORMAT_NUMBERS: Record<number, GetResponseFormat> = Object.fromEntries(
  GET_RESPONSE_FORMATS.map((name, i) => [i, name]),
);
