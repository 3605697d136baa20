import type * as Api from '../../api';

/** `GET /api/public-config`: the support e-mail, company name and postal address shown on every public page. */
export type PublicConfig = Api.PublicConfigResponse;
