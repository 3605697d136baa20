import type * as Api from '../../api';

export type ApiToken = Api.ApiTokenResponse;

export type CreatedApiToken = Api.CreatedApiTokenResponse;
