/**
 * Matching URIs against RFC 6570 URI templates (the reverse of expansion), for `resources/read` on resource
 * templates (MCP 2025-11-25 server/resources.mdx "Resource Templates").
 *
 * Supported expressions: `{var}`, `{+var}`, `{#var}`, `{.var}`, `{/var}`, `{;var}`, `{?a,b}`, `{&a}`, with
 * the explode modifier `*` on `/`, `.` and simple expressions (values split into arrays). Query expressions
 * (`?`, `&`) match parameters in any order and may be absent.
 *
 * **Matching is linear in the URI length.** A template compiles to a tiny program (literal characters,
 * character classes, lazy and greedy repetition, capture marks) run by a backtracking matcher that never visits
 * the same (instruction, position) state twice, so a near-miss URI costs at most instructions × characters
 * steps (a regular expression with two lazy variables separated by a literal backtracked polynomially: seconds
 * for a 1 KB URI). URIs longer than {@link MAX_TEMPLATE_URI_LENGTH} do not match at all.
 *
 * **Where a URI splits more than one way, each variable takes the shortest value that lets the rest of the
 * template match, left to right** (the semantics of the lazy regular expression this matcher replaced): with
 * `x://{a}-{b}`, `x://1-2-3` gives `a = "1"`, `b = "2-3"`.
 */

type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

interface VarSpec { readonly name: string; readonly explode: boolean }
interface Expression { readonly op: Operator; readonly vars: readonly VarSpec[] }

/** URIs longer than this (UTF-16 units) never match a template. */
export const MAX_TEMPLATE_URI_LENGTH = 8192;

/**
 * One instruction of a compiled template. `char`: the character at the position must be `code`; `class`: it
 * must be in (`include`) or not in (`exclude`) a set; `split`: try `next` first, then `alt`; `save`: record the
 * position in capture slot `slot`; `match`: success when the whole URI is consumed.
 */
type Instruction =
  | { readonly op: 'char'; readonly code: number }
  | { readonly op: 'class'; readonly chars: string; readonly include: boolean }
  | { readonly op: 'split'; readonly next: number; readonly alt: number }
  | { readonly op: 'jump'; readonly to: number }
  | { readonly op: 'save'; readonly slot: number }
  | { readonly op: 'match' };

/** Builds the program; `split` targets are patched once known. */
class ProgramBuilder {
  readonly code: Instruction[] = [];
  #slots = 0;

  literal(text: string): void {
    for (let i = 0; i < text.length; i++) this.code.push({ op: 'char', code: text.charCodeAt(i) });
  }

  /** A capture of zero or more characters of a class; lazy (shortest first) or greedy. Returns its slot pair. */
  capture(chars: string, include: boolean, lazy: boolean): number {
    const slot = this.#slots;
    this.#slots += 2;
    this.code.push({ op: 'save', slot });
    const loop = this.code.length;
    this.code.push({ op: 'split', next: 0, alt: 0 }); // patched below
    const body = this.code.length;
    this.code.push({ op: 'class', chars, include });
    this.code.push({ op: 'jump', to: loop });
    const exit = this.code.length;
    this.code[loop] = lazy ? { op: 'split', next: exit, alt: body } : { op: 'split', next: body, alt: exit };
    this.code.push({ op: 'save', slot: slot + 1 });
    return slot;
  }

  /** Starts an optional part (tried first, greedy); returns a handle for {@link ProgramBuilder.endOptional}. */
  beginOptional(): number {
    this.code.push({ op: 'split', next: 0, alt: 0 });
    return this.code.length - 1;
  }

  endOptional(handle: number): void {
    this.code[handle] = { op: 'split', next: handle + 1, alt: this.code.length };
  }

  get slots(): number {
    return this.#slots;
  }
}

/** A compiled URI template. */
export class UriTemplate {
  readonly template: string;
  readonly variableNames: readonly string[];
  readonly #program: readonly Instruction[];
  readonly #slots: number;
  readonly #captures: readonly { readonly spec: VarSpec; readonly op: Operator; readonly slot: number }[];
  readonly #querySlots: readonly number[];
  readonly #query: readonly VarSpec[];

  /** @throws TypeError when the template is malformed (unbalanced braces, unknown operator) */
  constructor(template: string) {
    this.template = template;
    const parts = template.split(/(\{[^{}]*\})/);
    const b = new ProgramBuilder();
    const captures: { spec: VarSpec; op: Operator; slot: number }[] = [];
    const query: VarSpec[] = [];
    const querySlots: number[] = [];
    for (const part of parts) {
      if (part === '') continue;
      if (!part.startsWith('{')) {
        if (part.includes('{') || part.includes('}')) throw new TypeError(`Invalid URI template: unbalanced braces in "${template}"`);
        b.literal(part);
        continue;
      }
      const expr = parseExpression(part.slice(1, -1), template);
      if (expr.op === '?' || expr.op === '&') {
        // `[?&]` then the rest of the query (everything before a fragment), optional and greedy.
        query.push(...expr.vars);
        const optional = b.beginOptional();
        b.code.push({ op: 'class', chars: '?&', include: true });
        querySlots.push(b.capture('#', false, false));
        b.endOptional(optional);
        continue;
      }
      const prefix = expr.op === '' || expr.op === '+' ? '' : expr.op;
      expr.vars.forEach((spec, i) => {
        // Reserved and fragment expansion (and an exploded path) may contain '/'; the others stop at delimiters.
        const excluded = expr.op === '+' || expr.op === '#' || (expr.op === '/' && spec.explode) ? '?#' : '/?#.,';
        const sep = i === 0 ? prefix : expr.op === '' || expr.op === '+' || expr.op === '#' ? ',' : prefix;
        b.literal(sep);
        if (expr.op === ';') {
          b.literal(spec.name);
          const eq = b.beginOptional();
          b.literal('=');
          b.endOptional(eq);
        }
        captures.push({ spec, op: expr.op, slot: b.capture(excluded, false, true) });
      });
    }
    b.code.push({ op: 'match' });
    this.#program = b.code;
    this.#slots = b.slots;
    this.#captures = captures;
    this.#query = query;
    this.#querySlots = querySlots;
    this.variableNames = [...captures.map((c) => c.spec.name), ...query.map((q) => q.name)];
  }

  /**
   * Matches `uri` against the template. Returns the decoded variables, or `undefined` when it does not match
   * (or is longer than {@link MAX_TEMPLATE_URI_LENGTH}). Exploded variables and comma-separated lists yield
   * arrays. The result has no prototype, so a variable named `__proto__` is an ordinary key.
   */
  match(uri: string): Record<string, string | string[]> | undefined {
    if (uri.length > MAX_TEMPLATE_URI_LENGTH) return undefined;
    const slots = run(this.#program, this.#slots, uri);
    if (slots === undefined) return undefined;
    const text = (slot: number): string | undefined => {
      const start = slots[slot]!;
      const end = slots[slot + 1]!;
      return start < 0 || end < 0 ? undefined : uri.slice(start, end);
    };
    const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
    for (const { spec, op, slot } of this.#captures) {
      const raw = text(slot) ?? '';
      if (spec.explode) {
        const sep = op === '/' ? '/' : op === '.' ? '.' : ',';
        out[spec.name] = raw === '' ? [] : raw.split(sep).map(safeDecode);
      } else {
        out[spec.name] = safeDecode(raw);
      }
    }
    if (this.#query.length > 0) {
      const queryText = this.#querySlots.map(text).filter((v) => v !== undefined).join('&');
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

/** A frame of the matcher's explicit stack: a state to try, or a capture slot to restore when backing out. */
type Frame = { readonly pc: number; readonly pos: number } | { readonly slot: number; readonly old: number };

/**
 * Runs `program` over the whole of `text`: depth-first in priority order, skipping any (instruction, position)
 * state already visited (it can only fail again: the program has no back-references), so the work is bounded
 * by instructions × (characters + 1). Returns the capture slots of the first (highest-priority) match.
 */
function run(program: readonly Instruction[], slotCount: number, text: string): Int32Array | undefined {
  const n = text.length;
  const width = n + 1;
  const visited = new Uint8Array(program.length * width);
  const slots = new Int32Array(slotCount).fill(-1);
  const stack: Frame[] = [{ pc: 0, pos: 0 }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if ('slot' in frame) {
      slots[frame.slot] = frame.old;
      continue;
    }
    let { pc, pos } = frame;
    for (;;) {
      const key = pc * width + pos;
      if (visited[key] === 1) break;
      visited[key] = 1;
      const ins = program[pc]!;
      if (ins.op === 'char') {
        if (pos < n && text.charCodeAt(pos) === ins.code) { pc++; pos++; continue; }
        break;
      }
      if (ins.op === 'class') {
        if (pos < n && ins.chars.includes(text[pos]!) === ins.include) { pc++; pos++; continue; }
        break;
      }
      if (ins.op === 'split') {
        stack.push({ pc: ins.alt, pos });
        pc = ins.next;
        continue;
      }
      if (ins.op === 'jump') { pc = ins.to; continue; }
      if (ins.op === 'save') {
        stack.push({ slot: ins.slot, old: slots[ins.slot]! });
        slots[ins.slot] = pos;
        pc++;
        continue;
      }
      if (pos === n) return slots;
      break;
    }
  }
  return undefined;
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

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
