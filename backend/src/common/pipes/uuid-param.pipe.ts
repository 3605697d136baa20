import { BadRequestException, ParseUUIDPipe } from '@nestjs/common';

/** A uuid path parameter; anything else is a 400 naming what was expected ("Invalid product ID."). */
export const UuidParam = (what: string) =>
  new ParseUUIDPipe({ exceptionFactory: () => new BadRequestException(`Invalid ${what} ID.`) });
