#!/usr/bin/env node
// @ts-check
/**
 * Builds the demo's sample shop database, `shop.sqlite`, next to this file.
 *
 *   node examples/demo/data/build.mjs           writes examples/demo/data/shop.sqlite
 *   node examples/demo/data/build.mjs --check   exits 1 when the shipped file differs from a fresh build
 *
 * Every value comes from a seeded pseudo-random generator, so the same sql.js version always produces the
 * same bytes (test/demo.test.ts rebuilds it and compares). Tables: customers (200), products (40),
 * orders (3,000) and order_items (7,279), about 400 KB.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import initSqlJs from 'sql.js';

/** Where the database is written. */
export const DATABASE_FILE = fileURLToPath(new URL('./shop.sqlite', import.meta.url));

const SEED = 20_260_701;
const CUSTOMERS = 200;
const ORDERS = 3000;
/** Orders are placed on days from this date on (UTC). */
const FIRST_DAY_MS = Date.UTC(2025, 0, 1);
const DAYS = 365;

/** @param {number} seed */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const FIRST_NAMES = ['Ada', 'Alan', 'Barbara', 'Claude', 'Dennis', 'Donald', 'Edsger', 'Frances', 'Grace', 'Guido',
  'Hedy', 'Ivan', 'John', 'Ken', 'Leslie', 'Linus', 'Margaret', 'Niklaus', 'Radia', 'Shafi', 'Tim', 'Vint', 'Whitfield', 'Yukihiro'];
const LAST_NAMES = ['Allen', 'Backus', 'Cerf', 'Dijkstra', 'Engelbart', 'Floyd', 'Goldwasser', 'Hopper', 'Iverson', 'Kay',
  'Knuth', 'Lamport', 'Liskov', 'Lovelace', 'McCarthy', 'Perlman', 'Ritchie', 'Sutherland', 'Thompson', 'Turing', 'Wirth'];
/** @type {readonly (readonly [city: string, country: string])[]} */
const CITIES = [['Amsterdam', 'NL'], ['Berlin', 'DE'], ['Bogotá', 'CO'], ['Lagos', 'NG'], ['Lisbon', 'PT'], ['Montréal', 'CA'],
  ['Osaka', 'JP'], ['Paris', 'FR'], ['Pune', 'IN'], ['São Paulo', 'BR'], ['Seattle', 'US'], ['Sydney', 'AU']];
/** @type {readonly (readonly [name: string, category: string, priceCents: number])[]} */
const PRODUCTS = [
  ['Mechanical keyboard', 'peripherals', 8900], ['Ergonomic mouse', 'peripherals', 4900], ['USB-C hub', 'peripherals', 3900],
  ['27" monitor', 'peripherals', 27_900], ['Webcam', 'peripherals', 6900], ['Headset', 'peripherals', 7900],
  ['Laptop stand', 'desk', 3500], ['Desk lamp', 'desk', 2900], ['Standing desk', 'desk', 44_900], ['Desk mat', 'desk', 1900],
  ['Cable tray', 'desk', 2400], ['Monitor arm', 'desk', 9900], ['Office chair', 'desk', 32_900], ['Footrest', 'desk', 3900],
  ['Notebook (A5, dotted)', 'stationery', 1200], ['Fountain pen', 'stationery', 4500], ['Gel pens (10)', 'stationery', 900],
  ['Sticky notes', 'stationery', 500], ['Whiteboard', 'stationery', 5900], ['Markers (8)', 'stationery', 1100],
  ['SSD 1 TB', 'storage', 8900], ['SSD 2 TB', 'storage', 14_900], ['USB stick 128 GB', 'storage', 1900],
  ['NAS enclosure', 'storage', 29_900], ['SD card 256 GB', 'storage', 3400],
  ['Coffee beans (1 kg)', 'pantry', 2800], ['Green tea (100 bags)', 'pantry', 1400], ['Mug', 'pantry', 1500],
  ['Water bottle', 'pantry', 2200], ['Snack box', 'pantry', 2600],
  ['SQL in 10 minutes', 'books', 2900], ['The art of the protocol', 'books', 4400], ['Designing data systems', 'books', 4900],
  ['A field guide to JSON', 'books', 1900], ['TypeScript, deeply', 'books', 3900],
  ['Rubber duck', 'toys', 700], ['Desk plant', 'toys', 1800], ['Fidget cube', 'toys', 900], ['Puzzle (1000 pieces)', 'toys', 2400],
  ['Stress ball', 'toys', 600],
];
const STATUSES = ['placed', 'paid', 'shipped', 'delivered', 'delivered', 'delivered', 'delivered', 'cancelled'];

const SCHEMA = `
CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  city TEXT NOT NULL,
  country TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE products (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  category TEXT NOT NULL,
  price_cents INTEGER NOT NULL CHECK (price_cents > 0)
);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(id),
  ordered_at TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('placed', 'paid', 'shipped', 'delivered', 'cancelled'))
);
CREATE TABLE order_items (
  id INTEGER PRIMARY KEY,
  order_id INTEGER NOT NULL REFERENCES orders(id),
  product_id INTEGER NOT NULL REFERENCES products(id),
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  unit_price_cents INTEGER NOT NULL
);
CREATE INDEX orders_customer ON orders(customer_id);
CREATE INDEX order_items_order ON order_items(order_id);
`;

/** @param {number} ms */
function isoSeconds(ms) {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Builds the database in memory.
 * @returns {Promise<Uint8Array>} the SQLite file's bytes
 */
export async function buildDatabase() {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  const random = mulberry32(SEED);
  /** @template T @param {readonly T[]} list @returns {T} */
  const pick = (list) => /** @type {T} */ (list[Math.floor(random() * list.length)]);
  try {
    db.run('PRAGMA page_size = 4096');
    db.exec(SCHEMA);
    db.exec('BEGIN');

    const customer = db.prepare('INSERT INTO customers (id, name, email, city, country, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    for (let id = 1; id <= CUSTOMERS; id++) {
      const first = pick(FIRST_NAMES);
      const last = pick(LAST_NAMES);
      const [city, country] = pick(CITIES);
      const joined = FIRST_DAY_MS - Math.floor(random() * 700) * 86_400_000;
      customer.run([id, `${first} ${last}`, `${first}.${last}.${id}@example.com`.toLowerCase(), city, country, isoSeconds(joined).slice(0, 10)]);
    }
    customer.free();

    const product = db.prepare('INSERT INTO products (id, name, category, price_cents) VALUES (?, ?, ?, ?)');
    PRODUCTS.forEach(([name, category, price], i) => { product.run([i + 1, name, category, price]); });
    product.free();

    const order = db.prepare('INSERT INTO orders (id, customer_id, ordered_at, status) VALUES (?, ?, ?, ?)');
    const item = db.prepare('INSERT INTO order_items (id, order_id, product_id, quantity, unit_price_cents) VALUES (?, ?, ?, ?, ?)');
    /** Order times, sorted so that ids follow time. */
    const times = Array.from({ length: ORDERS }, () => FIRST_DAY_MS + Math.floor(random() * DAYS * 86_400) * 1000).sort((a, b) => a - b);
    let itemId = 0;
    times.forEach((time, i) => {
      const orderId = i + 1;
      order.run([orderId, 1 + Math.floor(random() * CUSTOMERS), isoSeconds(time), pick(STATUSES)]);
      const lines = 1 + Math.floor(random() * 4);
      const used = new Set();
      for (let line = 0; line < lines; line++) {
        const productIndex = Math.floor(random() * PRODUCTS.length);
        if (used.has(productIndex)) continue;
        used.add(productIndex);
        const price = /** @type {(typeof PRODUCTS)[number]} */ (PRODUCTS[productIndex])[2];
        item.run([++itemId, orderId, productIndex + 1, 1 + Math.floor(random() * 3), price]);
      }
    });
    order.free();
    item.free();
    db.exec('COMMIT');
    db.exec('VACUUM');
    return db.export();
  } finally {
    db.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bytes = await buildDatabase();
  if (process.argv.includes('--check')) {
    const same = Buffer.compare(readFileSync(DATABASE_FILE), bytes) === 0;
    process.stderr.write(same ? `${DATABASE_FILE} is up to date\n` : `${DATABASE_FILE} differs from a fresh build: run node examples/demo/data/build.mjs\n`);
    process.exitCode = same ? 0 : 1;
  } else {
    writeFileSync(DATABASE_FILE, bytes);
    process.stderr.write(`wrote ${DATABASE_FILE} (${bytes.length} bytes)\n`);
  }
}
