import type * as Api from '../../api';

export type Product = Api.ProductResponse;

export type UploadReport = Api.UploadResponse;

/** docs/product.md §19.3 answer of `POST /api/products/{id}/voucher-codes/void`. */
export type VoidReport = Api.VoidResponse;

/** docs/product.md §20.2 `GET /api/license-pool/forecast`: one licence-managed product's pool. */
export type PoolForecast = Api.PoolForecastResponse;
