import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

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

/** 400 with the first failing rule's message as `message`, and every field's message in `errors` (docs/product.md §9.1). */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const fieldErrors = flatten(errors);
      return new BadRequestException({
        message: fieldErrors[0]?.message ?? 'Invalid input',
        error: 'Bad Request',
        errors: fieldErrors,
      });
    },
  });
}
