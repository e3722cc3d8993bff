// A scripted session of ClickHouse's official Node.js client against granite's HTTP interface,
// with nothing granite-specific: DDL, an insert in JSONEachRow, queries in JSONEachRow and JSON
// with column metadata, CSV as text, a server-side query parameter, errors with their codes, a
// 10,000,000-row result read as a stream to the end (row count and sum asserted, not speed), a
// query aborted by the client (which cancels it on the server). Prints "ok" and exits 0 when every
// step holds.
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

const csv = await (await client.query({
  query: 'SELECT id, name FROM js WHERE id < 2 ORDER BY id', format: 'CSVWithNames' })).text();
assert.equal(csv, '"id","name"\n0,"n0"\n1,"n1"\n');

const bound = await (await client.query({
  query: 'SELECT name FROM js WHERE id = {wanted:UInt32}', query_params: { wanted: 7 },
  format: 'JSONEachRow' })).json();
assert.deepEqual(bound, [{ name: 'n7' }]);

await assert.rejects(client.query({ query: 'SELECT * FROM no_such_table' }),
                     (e) => e.code === '60' && e.type === 'UNKNOWN_TABLE');
await assert.rejects(client.command({ query: 'SELEC 1' }),
                     (e) => e.code === '62' && e.type === 'SYNTAX_ERROR');

let count = 0;
let total = 0;
const rowsWanted = 10000000;
const stream = (await client.query({
  query: `SELECT number FROM numbers(${rowsWanted})`, format: 'JSONCompactEachRow' })).stream();
for await (const batch of stream) {
  for (const row of batch) {
    const [n] = row.json();
    count += 1;
    total += Number(n);
  }
}
assert.equal(count, rowsWanted);
assert.equal(total, rowsWanted * (rowsWanted - 1) / 2);  // below 2^53: exact as a Number

const controller = new AbortController();
const slow = client.query({ query: 'SELECT sum(number) FROM numbers(18446744073709551615)',
                            query_id: 'node-cancel', abort_signal: controller.signal });
setTimeout(() => controller.abort(), 300);
await assert.rejects(slow);

await client.close();
console.log('ok');
