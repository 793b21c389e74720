/**
 * Matching URIs against RFC 6570 URI templates (the reverse of expansion), for `resources/read` on resource
 * templates (MCP 2025-11-25 server/resources.mdx "Resource Templates").
 *
 * Supported expressions: `{var}`, `{+var}`, `{#var}`, `{.var}`, `{/var}`, `{;var}`, `{?a,b}`, `{&a}`, with
 * the explode modifier `*` on `/`, `.` and simple expressions (values split into arrays). Query expressions
 * (`?`, `&`) match parameters in any order and may be absent.
 */

type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

interface VarSpec { readonly name: string; readonly explode: boolean }
interface Expression { readonly op: Operator; readonly vars: readonly VarSpec[] }

/** A compiled URI template. */
export class UriTemplate {
  readonly template: string;
  readonly variableNames: readonly string[];
  readonly #regex: RegExp;
  readonly #captures: readonly { readonly spec: VarSpec; readonly op: Operator }[];
  readonly #query: readonly VarSpec[];

  /** @throws TypeError when the template is malformed (unbalanced braces, unknown operator) */
  constructor(template: string) {
    this.template = template;
    const parts = template.split(/(\{[^{}]*\})/);
    let source = '^';
    const captures: { spec: VarSpec; op: Operator }[] = [];
    const query: VarSpec[] = [];
    for (const part of parts) {
      if (part === '') continue;
      if (!part.startsWith('{')) {
        if (part.includes('{') || part.includes('}')) throw new TypeError(`Invalid URI template: unbalanced braces in "${template}"`);
        source += escapeRegex(part);
        continue;
      }
      const expr = parseExpression(part.slice(1, -1), template);
      if (expr.op === '?' || expr.op === '&') {
        query.push(...expr.vars);
        source += '(?:[?&](?<__q' + query.length + '>[^#]*))?';
        continue;
      }
      const prefix = expr.op === '' || expr.op === '+' ? '' : escapeRegex(expr.op === '#' ? '#' : expr.op);
      expr.vars.forEach((spec, i) => {
        const group = `v${captures.length}`;
        const allowed = expr.op === '+' || expr.op === '#' ? '[^?#]' : expr.op === '/' && spec.explode ? '[^?#]' : '[^/?#.,]';
        const sep = i === 0 ? prefix : expr.op === '' || expr.op === '+' || expr.op === '#' ? ',' : prefix;
        const valuePattern = spec.explode && expr.op !== '/' ? `${allowed}*?` : `${allowed}*?`;
        source += expr.op === ';' ? `(?:${sep}${escapeRegex(spec.name)}=?(?<${group}>${valuePattern}))` : `${sep}(?<${group}>${valuePattern})`;
        captures.push({ spec, op: expr.op });
      });
    }
    source += '$';
    this.#regex = new RegExp(source);
    this.#captures = captures;
    this.#query = query;
    this.variableNames = [...captures.map((c) => c.spec.name), ...query.map((q) => q.name)];
  }

  /**
   * Matches `uri` against the template. Returns the decoded variables, or `undefined` when it does not match.
   * Exploded variables and comma-separated lists yield arrays.
   */
  match(uri: string): Record<string, string | string[]> | undefined {
    const m = this.#regex.exec(uri);
    if (m === null) return undefined;
    const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
    const groups = m.groups ?? {};
    for (let i = 0; i < this.#captures.length; i++) {
      const { spec, op } = this.#captures[i]!;
      const raw = groups[`v${i}`] ?? '';
      if (spec.explode) {
        const sep = op === '/' ? '/' : op === '.' ? '.' : ',';
        out[spec.name] = raw === '' ? [] : raw.split(sep).map(safeDecode);
      } else {
        out[spec.name] = safeDecode(raw);
      }
    }
    if (this.#query.length > 0) {
      const queryText = Object.entries(groups).filter(([k, v]) => k.startsWith('__q') && v !== undefined).map(([, v]) => v).join('&');
      const wanted = new Set(this.#query.map((q) => q.name));
      for (const pair of queryText.split('&')) {
        if (pair === '') continue;
        const eq = pair.indexOf('=');
        const name = safeDecode(eq < 0 ? pair : pair.slice(0, eq));
        if (!wanted.has(name)) continue;
        out[name] = safeDecode(eq < 0 ? '' : pair.slice(eq + 1));
      }
    }
    return out;
  }

  /** Whether `uri` matches. */
  test(uri: string): boolean {
    return this.match(uri) !== undefined;
  }
}

function parseExpression(body: string, template: string): Expression {
  const first = body[0];
  const op: Operator = first !== undefined && '+#./;?&'.includes(first) ? (first as Operator) : '';
  const list = op === '' ? body : body.slice(1);
  if (list === '') throw new TypeError(`Invalid URI template: empty expression in "${template}"`);
  const vars = list.split(',').map((raw) => {
    const explode = raw.endsWith('*');
    const name = (explode ? raw.slice(0, -1) : raw).replace(/:\d+$/, '');
    if (!/^[A-Za-z0-9_.%]+$/.test(name)) throw new TypeError(`Invalid URI template: bad variable name "${raw}" in "${template}"`);
    return { name, explode };
  });
  return { op, vars };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
