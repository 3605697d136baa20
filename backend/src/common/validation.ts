import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { type FieldError, invalidTextFields } from './input-text';

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
  return new AppValidationPipe({
    transform: true,
    whitelist: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => fieldErrorsException(flatten(errors)),
  });
}
