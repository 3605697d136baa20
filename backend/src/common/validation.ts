import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { invalidTextFields } from './input-text';

type Storage = ReturnType<typeof getMetadataStorage>;
type Metadatas = ReturnType<Storage['getTargetValidationMetadatas']>;

/**
 * class-validator filters its whole metadata list for a class (and groups it by property) on every validation. The
 * decorators register everything as the classes load, so the answer for a class is the same on every request: it
 * is kept per class and options until anything registers more metadata (issue 26, API CPU per redemption).
 */
export function cacheValidationMetadata(storage: Storage = getMetadataStorage()): void {
  const marked = storage as Storage & { cachedForRequests?: true };
  if (marked.cachedForRequests) return;
  marked.cachedForRequests = true;
  // Bumped by any registration: every cached answer is then out of date.
  let generation = 0;
  const byTarget = new WeakMap<object, { generation: number; answers: Map<string, Metadatas> }>();
  let grouped = new WeakMap<Metadatas, ReturnType<Storage['groupByPropertyName']>>();
  const getTargetValidationMetadatas = storage.getTargetValidationMetadatas.bind(storage);
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0001') ?? ''}`;
    let cached = byTarget.get(target);
    if (cached?.generation !== generation) {
      cached = { generation, answers: new Map() };
      byTarget.set(target, cached);
    }
    let found = cached.answers.get(key);
    if (!found) {
      found = getTargetValidationMetadatas(target, schema, always, strictGroups, groups);
      cached.answers.set(key, found);
    }
    return found;
  };
  const groupByPropertyName = storage.groupByPropertyName.bind(storage);
  storage.groupByPropertyName = (metadata) => {
    let found = grouped.get(metadata);
    if (!found) {
      found = groupByPropertyName(metadata);
      grouped.set(metadata, found);
    }
    return found;
  };
  for (const method of ['addValidationMetadata', 'addConstraintMetadata', 'addValidationSchema'] as const) {
    const original = (storage[method] as (arg: unknown) => void).bind(storage);
    (storage as unknown as Record<string, (arg: unknown) => void>)[method] = (arg) => {
      generation++;
      grouped = new WeakMap();
      original(arg);
    };
  }
}

export interface FieldError {
  field: string;
  message: string;
}

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const messages = Object.values(error.constraints ?? {});
    // With stopAtFirstError there is one message per field: the first rule it broke.
    if (messages.length) out.push({ field, message: messages[messages.length - 1] });
    if (error.children?.length) out.push(...flatten(error.children, field));
  }
  return out;
}

function fieldErrorsException(fieldErrors: FieldError[]): BadRequestException {
  return new BadRequestException({
    message: fieldErrors[0]?.message ?? 'Invalid input',
    error: 'Bad Request',
    errors: fieldErrors,
  });
}

/**
 * Before any DTO rule: every string of the body, the query and the path parameters must be text PostgreSQL and
 * the validators can take (`common/input-text.ts`); otherwise 400 naming the fields, and the handler never runs.
 * Checked here once for every route (issue 24), not per DTO.
 */
class AppValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' || metadata.type === 'query' || metadata.type === 'param') {
      const invalid = invalidTextFields(value, metadata.data ?? '');
      if (invalid.length) throw fieldErrorsException(invalid);
    }
    return super.transform(value, metadata);
  }
}

/** 400 with the first failing rule's message as `message`, and every field's message in `errors` (docs/product.md §9.1). */
export function createValidationPipe(): ValidationPipe {
  cacheValidationMetadata();
  return new AppValidationPipe({
    transform: true,
    whitelist: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => fieldErrorsException(flatten(errors)),
  });
}
