/**
 * Queries over a small row table the way Weave's lightweight ORM (weave/trace_server/orm.py)
 * runs them for feedback and LLM prices: `fields` select columns or paths into the JSON column
 * (`payload.note`), the `$expr` query and `sort_by` read the same names, and an unknown name
 * is production's 400 "Unknown field: …". The expression compiler and the sorter are the
 * calls query's own (expr/compile.ts, order.ts); this module only supplies the accessors:
 *  - plain columns read as themselves (datetimes as µs, numbers as numbers);
 *  - the JSON column itself reads as its JSON text; a path into it as a dynamic JSON field
 *    (JSON_VALUE text, '' when missing; casts on comparison; three sort keys, existence being
 *    JSON_EXISTS, so a JSON null exists). Unlike the calls query, the ORM reads JSON_VALUE
 *    without `nullIf(…, 'null')`: the string "null" reads as "null".
 * Selected JSON paths come back as their JSON_VALUE text under the path's name.
 */
import { formatMicros } from '../../core/datetime.ts';
import { invalidRequest, type ErrorPath } from '../../core/errors.ts';
import { jsonValueString, toFloat64OrNull, toInt64OrNull } from '../../core/ch/values.ts';
import type { FieldAccessor, FieldResolver } from '../calls/expr/fields.ts';
import { MISSING, readPath, splitFieldPath } from '../calls/json-path.ts';

type ColumnKind = 'string' | 'number' | 'datetime' | 'json';

export interface Column<R> {
  name: string;
  kind: ColumnKind;
  get(row: R): unknown;
}

const unknownField = (field: string, loc?: ErrorPath) => invalidRequest('TQ_INVALID_REQUEST', { reason: `Unknown field: ${field}` }, loc);

export class RowTable<R> implements FieldResolver {
  private readonly byName: Map<string, Column<R>>;

  constructor(
    readonly rows: readonly R[],
    readonly columns: ReadonlyArray<Column<R>>,
  ) {
    this.byName = new Map(columns.map((c) => [c.name, c]));
  }

  /** The column and JSON path a field names; throws "Unknown field" (400). */
  private locate(field: string, loc?: ErrorPath): { column: Column<R>; path: string[] | null } {
    const direct = this.byName.get(field);
    if (direct) return { column: direct, path: null };
    const dot = field.indexOf('.');
    const column = dot > 0 ? this.byName.get(field.slice(0, dot)) : undefined;
    if (!column || column.kind !== 'json') throw unknownField(field, loc);
    return { column, path: splitFieldPath(field.slice(dot + 1)) };
  }

  /** Checks every field before any row is read. */
  validate(fields: readonly string[], loc: ErrorPath): void {
    fields.forEach((f, i) => this.locate(f, [...loc, i]));
  }

  resolve(field: string, loc?: ErrorPath): FieldAccessor {
    const { column, path } = this.locate(field, loc);
    const rows = this.rows;
    if (path !== null) {
      const raw = (r: number) => readPath(column.get(rows[r]), path);
      const str = (r: number) => {
        const v = raw(r);
        return v === MISSING ? '' : jsonValueString(v);
      };
      return {
        kind: 'json',
        str,
        float: (r) => toFloat64OrNull(str(r)),
        int: (r) => toInt64OrNull(str(r)),
        // The ORM reads existence with JSON_EXISTS: a path holding JSON null exists.
        exists: (r) => raw(r) !== MISSING,
      };
    }
    switch (column.kind) {
      case 'number':
        return { kind: 'number', get: (r) => column.get(rows[r]) as number | null };
      case 'datetime':
        return { kind: 'datetime', get: (r) => column.get(rows[r]) as number | null };
      case 'json':
        return { kind: 'string', get: (r) => JSON.stringify(column.get(rows[r])) };
      default:
        return { kind: 'string', get: (r) => column.get(rows[r]) as string | null };
    }
  }

  /** One result row: the selected fields (all columns when none), datetimes as ISO text. */
  select(r: number, fields: readonly string[] | null): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const field of fields ?? this.columns.map((c) => c.name)) {
      const { column, path } = this.locate(field);
      if (path !== null) {
        const v = readPath(column.get(this.rows[r]), path);
        out[field] = v === MISSING ? '' : jsonValueString(v);
        continue;
      }
      const v = column.get(this.rows[r]);
      out[field] = column.kind === 'datetime' && typeof v === 'number' ? formatMicros(v) : v;
    }
    return out;
  }
}
