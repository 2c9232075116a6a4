/** Weave's `SortBy` model (`{field, direction}`), shared by every query that sorts this way. */
import { literal, model, str, type Infer } from '../schema.ts';

export const sortBy = model('SortBy', { field: str(), direction: literal(['asc', 'desc'] as const) }, { strict: true });

export type SortBy = Infer<typeof sortBy>;
