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
  return SwaggerModule.createDocument(app, info);
}

/**
 * The same document without a database, Redis or a listening server: Nest's preview mode reads the modules'
 * routes and decorators without creating a provider. The routes do not depend on configuration.
 */
export async function openApiDocumentWithoutServer(): Promise<OpenAPIObject> {
  const config = loadConfig({
    NODE_ENV: 'test',
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
