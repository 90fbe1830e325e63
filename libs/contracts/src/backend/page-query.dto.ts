import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** `?limit=&cursor=` of every backend list. */
export class PageQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `next` or `prev` of a previous page.' })
  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}

/** A backend list page: the items under their own key (`providers`, `scanners`, ...), plus cursors. */
export type Page<K extends string, T> = { [key in K]: T[] } & { next: string | null; prev: string | null };
