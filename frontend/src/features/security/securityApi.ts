import type * as Api from '../../api';

export type TwoFactorSetup = Api.TwoFactorSetupResponse;

/** `GET /api/admin/sessions`: the signed-in user's live sessions. */
export type OwnSession = Api.OwnSessionResponse;
