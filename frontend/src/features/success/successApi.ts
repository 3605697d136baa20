import type * as Api from '../../api';

/** GET /api/success-token/{token}: what a success page shows. */
export type SuccessTokenView = Api.SuccessTokenResponse;
