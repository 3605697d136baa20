import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** `page` and `limit` of the page-numbered admin lists; each list documents its own default limit. */
export class PageQuery {
  @ApiPropertyOptional({ default: 1, minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  // Keeps (page - 1) * limit inside PostgreSQL's OFFSET range.
  @Max(1_000_000, { message: 'page must be at most 1000000' })
  @Min(1, { message: 'page must be at least 1' })
  @IsInt({ message: 'page must be a whole number' })
  page?: number;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: 500,
    description: 'Rows per page (default: 50 for redemptions, 100 for licence keys)',
  })
  @IsOptional()
  @Type(() => Number)
  @Max(500, { message: 'limit must be at most 500' })
  @Min(1, { message: 'limit must be at least 1' })
  @IsInt({ message: 'limit must be a whole number' })
  limit?: number;
}

/** OpenAPI schema of the `pagination` object every admin list answers (`pagination()` in database/list/list-rules.ts). */
export class PaginationResponse {
  @ApiProperty({ example: 1 }) currentPage: number;
  @ApiProperty({ example: 50 }) limit: number;
  @ApiProperty({ description: 'Exact up to 1,000 matches, else PostgreSQL’s estimate (totalCountExact false)' })
  totalCount: number;
  @ApiProperty() totalPages: number;
  @ApiProperty() hasPreviousPage: boolean;
  @ApiProperty({ description: 'Always exact' }) hasNextPage: boolean;
  @ApiProperty() totalCountExact: boolean;
}
