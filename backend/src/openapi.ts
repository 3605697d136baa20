import { INestApplication, RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module';
import { loadConfig } from './config/app-config';

/** Routes served outside `/api`: Prometheus expects `/metrics`. */
export const UNPREFIXED_ROUTES = ['metrics'];

/** The `/api` prefix every route but the unprefixed ones carries (the served app and the document alike). */
export function setApiPrefix(app: INestApplication): void {
  app.setGlobalPrefix('api', { exclude: UNPREFIXED_ROUTES.map((path) => ({ path, method: RequestMethod.GET })) });
}

/**
 * The OpenAPI document of the app's routes: the one API contract. The app serves it at /api/docs-json
 * (API_DOCS=public); `npm run api:generate` writes it to frontend/src/api/openapi.json and generates the frontend's
 * API types from it (docs/architecture.md "The API contract").
 */
export function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  const info = new DocumentBuilder()
    .setTitle('Office licence redemption API')
    .setDescription('Public redemption calls and the admin console API (docs/api.md)')
    .setVersion('1')
    // Relative: the document describes whichever instance serves it (paths carry the /api prefix).
    .addServer('/', 'This instance')
    .addBearerAuth()
    // The licence centre's customer token (POST /api/customer/session): its routes take it and no other.
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Licence-centre customer token' }, 'customer')
    .build();
  return declareGlobalRefusals(SwaggerModule.createDocument(app, info));
}

const ERROR_SCHEMA = { $ref: '#/components/schemas/ErrorResponse' };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * What every route answers before its own code runs, declared on each operation it applies to (docs/api.md "Bad
 * input"): the validation pipe refuses a NUL character or an unpaired surrogate in any path parameter, query or body
 * (400); the JSON body parser refuses a body over its limit (413).
 */
function declareGlobalRefusals(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const json = (description: string) => ({
        description,
        content: { 'application/json': { schema: ERROR_SCHEMA } },
      });
      if ((operation.parameters?.length || operation.requestBody) && !operation.responses['400']) {
        operation.responses['400'] = json(
          'A value contains a character that is not allowed (NUL or an unpaired UTF-16 surrogate)',
        );
      }
      const body = operation.requestBody as { content?: Record<string, unknown> } | undefined;
      if (body?.content?.['application/json'] && !operation.responses['413']) {
        operation.responses['413'] = json('The request body is too large (at most 100 kB)');
      }
    }
  }
  return document;
}

/**
 * The same document without a database, Redis or a listening server: Nest's preview mode reads the modules'
 * routes and decorators without creating a provider. The routes do not depend on configuration.
 */
export async function openApiDocumentWithoutServer(): Promise<OpenAPIObject> {
  const config = loadConfig({
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    DATABASE_URL: 'postgres://preview@127.0.0.1:1/preview',
    JWT_SECRET: 'openapi-preview-secret-of-at-least-32-bytes',
    SERVE_FRONTEND: 'false',
  });
  const app = await NestFactory.create(
    AppModule.forRoot(config, { databaseUrl: config.databaseUrl!, processJobs: false }),
    { preview: true, logger: false, abortOnError: false },
  );
  try {
    setApiPrefix(app);
    return createOpenApiDocument(app);
  } finally {
    await app.close();
  }
}
