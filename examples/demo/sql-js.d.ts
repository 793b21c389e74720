/**
 * The part of sql.js 1.16 that the demo uses. sql.js ships no declarations; this keeps the example
 * type-checked without another dependency.
 */
declare module 'sql.js' {
  export type SqlValue = string | number | null | Uint8Array;

  export interface Statement {
    bind(params: readonly SqlValue[]): boolean;
    /** Advances to the next row; `false` once the statement is done. */
    step(): boolean;
    /** The current row, by column position. */
    get(): SqlValue[];
    getColumnNames(): string[];
    /** Binds `params` (if given), steps once and returns the row by column name (`{}` when there is none). */
    getAsObject(params?: readonly SqlValue[]): Record<string, SqlValue>;
    /** The statement's SQL text. */
    getSQL(): string;
    /** Binds `params` (if given), runs the statement to completion and resets it. */
    run(params?: readonly SqlValue[]): void;
    free(): boolean;
  }

  export interface QueryExecResult {
    columns: string[];
    values: SqlValue[][];
  }

  export interface Database {
    prepare(sql: string, params?: readonly SqlValue[]): Statement;
    /** Prepares the statements of `sql` one at a time (SQLite's own parser splits them). */
    iterateStatements(sql: string): Iterable<Statement>;
    exec(sql: string, params?: readonly SqlValue[]): QueryExecResult[];
    run(sql: string, params?: readonly SqlValue[]): Database;
    export(): Uint8Array;
    close(): void;
  }

  export interface SqlJsStatic {
    Database: new (data?: ArrayLike<number> | Buffer | null) => Database;
  }

  export default function initSqlJs(config?: { locateFile?: (file: string) => string }): Promise<SqlJsStatic>;
}
