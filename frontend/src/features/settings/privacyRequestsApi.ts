import type * as Api from '../../api';

/** `GET /api/admin/privacy-requests` (settings.access): the licence centre's requests, without personal data. */
export type PrivacyRequest = Api.PrivacyRequestRow;
