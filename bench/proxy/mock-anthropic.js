#!/usr/bin/env node
// A minimal Anthropic Messages API for the proxy benchmark: answers every request at once with a
// fixed short message. Run as its own process so it does not share a CPU loop with the load
// generator. Prints its URL on stdout.
const { createServer } = require('node:http');

const answer = JSON.stringify({
  id: 'msg_bench',
  type: 'message',
  role: 'assistant',
  model: 'claude-bench',
  content: [{ type: 'text', text: 'Thanks for asking. The report is attached; contact me at ops@example.com if needed.' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 18 },
});

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
    res.end(answer);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${server.address().port}`);
});
