// A scripted session of ClickHouse's official Node.js client against granite's HTTP interface,
// with nothing granite-specific: DDL, an insert in JSONEachRow, queries in JSONEachRow and JSON
// with column metadata, an error with its code, a 1,000,000-row result read as a stream, a query
// aborted by the client (which cancels it on the server). Prints "ok" and exits 0 when every step holds.
// Usage: node session.mjs http://127.0.0.1:PORT
import { createClient } from '@clickhouse/client';
import assert from 'node:assert/strict';

const client = createClient({ url: process.argv[2], request_timeout: 60000 });

assert.equal((await client.ping()).success, true);
await client.command({ query: 'CREATE TABLE js (id UInt32, name String, v Float64) ' +
                              'ENGINE = MergeTree ORDER BY id' });
const rows = Array.from({ length: 1000 }, (_, i) => ({ id: i, name: `n${i}`, v: i / 4 }));
await client.insert({ table: 'js', values: rows, format: 'JSONEachRow' });

const each = await (await client.query({
  query: 'SELECT id, name, v FROM js ORDER BY id', format: 'JSONEachRow' })).json();
assert.deepEqual(each, rows);

const json = await (await client.query({
  query: 'SELECT count() AS c, sum(id) AS s FROM js', format: 'JSON' })).json();
assert.deepEqual(json.meta.map((m) => [m.name, m.type]), [['c', 'UInt64'], ['s', 'UInt64']]);
assert.equal(Number(json.data[0].c), 1000);
assert.equal(Number(json.data[0].s), 499500);
assert.equal(json.rows, 1);

await assert.rejects(client.query({ query: 'SELECT * FROM no_such_table' }),
                     (e) => e.code === '60' && e.type === 'UNKNOWN_TABLE');

let count = 0;
let total = 0;
const stream = (await client.query({
  query: 'SELECT number FROM numbers(1000000)', format: 'JSONCompactEachRow' })).stream();
for await (const batch of stream) {
  for (const row of batch) {
    const [n] = row.json();
    count += 1;
    total += Number(n);
  }
}
assert.equal(count, 1000000);
assert.equal(total, 999999 * 1000000 / 2);

const controller = new AbortController();
const slow = client.query({ query: 'SELECT sum(number) FROM numbers(18446744073709551615)',
                            query_id: 'node-cancel', abort_signal: controller.signal });
setTimeout(() => controller.abort(), 300);
await assert.rejects(slow);

await client.close();
console.log('ok');
