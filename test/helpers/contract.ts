import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * The API contract in the tests (docs/testing.md "The API contract"): every response an e2e test
 * receives through `t.http()` is checked against the OpenAPI document the app serves. The status must be one the
 * operation declares, and a JSON body must validate against the schema declared for that status; a body with a
 * property the schema does not declare fails too, since the frontend's types (frontend/src/api/generated/) would
 * not know it. The component tests' fake server (frontend/src/test/fakeServer.ts) checks its answers with the same
 * rules against the checked-in copy of the document.
 */
export interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, any> }>>;
  components?: Record<string, any>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];
/**
 * Answers any route can give without declaring them: an unexpected failure (the exception filter's 500) and a
 * dependency down (503). Their JSON body is still the error body.
 */
const UNDECLARED_FAILURES = { 500: 'Internal server error', 503: 'Temporarily unavailable' } as Record<string, string>;
const ROOT_ID = 'openapi';

export interface ContractViolation {
  operation: string;
  message: string;
}

/** `{a}` of a path template as a regular expression segment. */
function templateRegex(template: string): RegExp {
  const escaped = template.replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === '{' || c === '}' ? c : `\\${c}`));
  return new RegExp(`^${escaped.replace(/\{[^}]+\}/g, '[^/]+')}/?$`);
}

/** Every object schema that lists its properties declares them all: the frontend's types know no other. */
function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${ROOT_ID}${value}` : value;
    if (key !== 'example' && key !== 'examples') out[key] = closeObjects(out[key]);
  }
  if (out.properties && typeof out.properties === 'object' && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  // `@ApiProperty({ type: Dto, nullable: true })` is `{nullable, type: object, allOf: [Dto]}`: the DTO or null, as
  // the generated types read it (OpenAPI 3.0 leaves `nullable` beside `allOf` to the reader).
  if (out.nullable === true && Array.isArray(out.allOf) && out.allOf.length === 1) {
    const { nullable: _nullable, type: _type, allOf, ...rest } = out;
    return { ...rest, anyOf: [allOf[0], { type: 'null' }] };
  }
  return out;
}

export class ApiContract {
  private readonly components: Record<string, any>;
  private readonly ajv: Ajv;
  private readonly routes: Array<{ method: string; template: string; regex: RegExp; responses: Record<string, any> }>;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly errorResponse = {
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
  };

  constructor(document: OpenApiDocument) {
    // OpenAPI 3.0 schemas: `nullable`, `example` and the numeric formats are not JSON Schema's own.
    this.ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true });
    addFormats(this.ajv);
    for (const format of ['binary', 'int32', 'int64', 'float', 'double', 'byte', 'password']) {
      this.ajv.addFormat(format, true);
    }
    this.components = document.components ?? {};
    this.ajv.addSchema({ $id: ROOT_ID, components: closeObjects(this.components) });
    this.routes = Object.entries(document.paths)
      .flatMap(([template, item]) =>
        Object.entries(item)
          .filter(([method]) => METHODS.includes(method))
          .map(([method, op]) => ({ method, template, regex: templateRegex(template), responses: op.responses ?? {} })),
      )
      // A literal segment wins over a parameter (`/api/redemptions/export` before `/api/redemptions/{id}`).
      .sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  }

  /**
   * The first success an operation declares, with the smallest body its schema allows (required properties only,
   * the first enum value, null where nullable): for fakes that only need the call to succeed.
   */
  success(method: string, url: string): { status: number; body?: unknown } {
    const route = this.route(method, url);
    const [status, declared] = Object.entries(route?.responses ?? {}).find(([code]) => /^2\d\d$/.test(code)) ?? [];
    if (!route || !status) throw new Error(`${method} ${url}: no operation with a success response`);
    const schema = declared.content?.['application/json']?.schema;
    return { status: Number(status), ...(schema ? { body: this.smallest(schema) } : {}) };
  }

  private smallest(schema: any): unknown {
    if (schema.$ref) return this.smallest(this.components.schemas[schema.$ref.split('/').pop()]);
    if (schema.nullable) return null;
    if (schema.allOf) return this.smallest(schema.allOf[0]);
    if (schema.enum) return schema.enum[0];
    if (schema.type === 'array') return [];
    if (schema.type === 'boolean') return false;
    if (schema.type === 'number' || schema.type === 'integer') return 0;
    if (schema.type === 'string') {
      const byFormat: Record<string, string> = {
        uuid: '00000000-0000-4000-8000-000000000000',
        'date-time': '2026-01-01T00:00:00.000Z',
        email: 'a@example.com',
        uri: 'https://example.com',
      };
      return byFormat[schema.format] ?? 'x';
    }
    const required: string[] = schema.required ?? [];
    return Object.fromEntries(required.map((name) => [name, this.smallest(schema.properties[name])]));
  }

  /** Whether the document has this operation (`GET /api/products/{id}` for `GET /api/products/p1`). */
  has(method: string, url: string): boolean {
    return this.route(method, url) !== undefined;
  }

  private route(method: string, url: string) {
    const path = new URL(url, 'http://contract.test').pathname;
    return this.routes.find((r) => r.method === method.toLowerCase() && r.regex.test(path));
  }

  /**
   * The violation of a response, or undefined when it keeps the contract (or is not an operation's: unknown
   * paths, the document itself).
   */
  check(
    method: string,
    url: string,
    status: number,
    contentType: string | undefined,
    body: unknown,
  ): ContractViolation | undefined {
    const verb = method.toLowerCase();
    const route = this.route(method, url);
    if (!route) return undefined;
    const operation = `${method.toUpperCase()} ${route.template}`;
    const declared =
      route.responses[String(status)] ??
      route.responses[`${String(status)[0]}XX`] ??
      (UNDECLARED_FAILURES[status] && this.errorResponse);
    if (!declared) {
      const statuses = Object.keys(route.responses).join(', ');
      return { operation, message: `answered ${status}, which it does not declare (declared: ${statuses})` };
    }
    if (verb === 'head' || status === 204 || status === 304) return undefined;
    if (!contentType || !/^application\/json/.test(contentType)) return undefined;
    const schema = declared.content?.['application/json']?.schema;
    if (!schema) {
      return { operation, message: `answered ${status} with a JSON body, but declares no JSON schema for it` };
    }
    const key = `${operation} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(closeObjects(schema) as object);
      this.compiled.set(key, validate);
    }
    if (validate(body)) return undefined;
    const errors = (validate.errors ?? [])
      .slice(0, 8)
      .map((e) => {
        const extra = e.keyword === 'additionalProperties' ? ` '${(e.params as any).additionalProperty}'` : '';
        return `  body${e.instancePath} ${e.message}${extra}`;
      })
      .join('\n');
    return { operation, message: `answered ${status} with a body that does not match its schema:\n${errors}` };
  }
}

/** A failed check as the test's error: what was asked, what came back, what is wrong. */
export function contractError(violation: ContractViolation, url: string, body: unknown): Error {
  const shown = JSON.stringify(body)?.slice(0, 600);
  return new Error(
    `API contract (OpenAPI document): ${violation.operation} (${url}) ${violation.message}\n  received: ${shown}\n` +
      "Fix the route's declaration (its DTO's @ApiProperty, @ApiOkResponse or @ApiErrorResponses) or the fake, then `npm run api:generate`.",
  );
}
