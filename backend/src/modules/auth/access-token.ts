/** Payload of an access token: HS256, 15 minutes. The session must still be active for it to work. */
export interface AccessTokenPayload {
  sub: string;
  sid: string;
  typ: 'access';
}
