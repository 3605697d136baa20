import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC_KEY = 'isPublic';

/** Opts a route out of authentication. Every other route is refused unless it names its permissions. */
export const Public = () => SetMetadata(IS_PUBLIC_KEY, true);
