// Reads one query's whole answer through ClickHouse's Node.js client (@clickhouse/client, from
// tests/integration/node/node_modules: scripts/install-node-clients.sh) as a stream of
// JSONCompactEachRow rows, for bench/streaming/run.py. Prints one JSON line: seconds to the first
// rows, seconds to the end, rows read.
// Usage: node node_read.cjs NODE_MODULES_DIR URL QUERY
const [modules, url, query] = process.argv.slice(2);
const { createClient } = require(require.resolve('@clickhouse/client', { paths: [modules] }));

(async () => {
  const client = createClient({ url, request_timeout: 3600000 });
  const start = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - start) / 1e9;
  let first = null;
  let rows = 0;
  const stream = (await client.query({ query, format: 'JSONCompactEachRow' })).stream();
  for await (const batch of stream) {
    if (first === null) first = seconds();
    for (const row of batch) {
      row.json();
      rows += 1;
    }
  }
  const total = seconds();
  await client.close();
  console.log(JSON.stringify({ first, total, rows }));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
