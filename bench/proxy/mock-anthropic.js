#!/usr/bin/env node
// A minimal Anthropic Messages API for the proxy benchmark, run as its own process so it does not
// share a CPU loop with the load generator. Prints its URL on stdout.
//
// A JSON request gets a fixed short message at once. A streaming request (`stream: true`) gets
// Anthropic's SSE events; the model name says how: `bench-stream-<intervalMs>-<chars>-<deltaChars>`
// streams <chars> characters of text in deltas of <deltaChars>, one delta every <intervalMs> ms
// (0: all at once). Any other model name streams the short message in 4-character deltas at once.
const { createServer } = require('node:http');

const TEXT = 'Thanks for asking. The report is attached; contact me at ops@example.com if needed.';
const answer = JSON.stringify({
  id: 'msg_bench',
  type: 'message',
  role: 'assistant',
  model: 'claude-bench',
  content: [{ type: 'text', text: TEXT }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 18 },
});

const WORDS = 'the quarterly numbers look steady and the board will review the forecast on Thursday morning '.split(
  ' ',
);
function prose(chars) {
  let s = '';
  for (let i = 0; s.length < chars; i++) s += `${WORDS[i % WORDS.length]} `;
  return s.slice(0, chars);
}

const event = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

function stream(res, model) {
  const m = /^bench-stream-(\d+)-(\d+)-(\d+)$/.exec(model ?? '');
  const interval = m ? Number(m[1]) : 0;
  const text = m ? prose(Number(m[2])) : TEXT;
  const step = m ? Math.max(1, Number(m[3])) : 4;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(
    event('message_start', {
      message: {
        id: 'msg_bench',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 1 },
      },
    }) + event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  );
  const end = () =>
    res.end(
      event('content_block_stop', { index: 0 }) +
        event('message_delta', {
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: Math.ceil(text.length / 4) },
        }) +
        event('message_stop', {}),
    );
  const delta = (i) =>
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: text.slice(i, i + step) } });
  if (interval === 0) {
    // One write per delta, as a model's tokens would arrive, but without waiting between them.
    for (let i = 0; i < text.length; i += step) res.write(delta(i));
    end();
    return;
  }
  let i = 0;
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer);
    res.write(delta(i));
    i += step;
    if (i >= text.length) {
      clearInterval(timer);
      end();
    }
  }, interval);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    // Cheap check first, so the JSON path costs the mock as little as possible.
    if (raw.includes('"stream":true')) {
      let body = {};
      try {
        body = JSON.parse(raw);
      } catch {
        // not JSON: answered as a plain request
      }
      if (body.stream === true) return stream(res, body.model);
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
    res.end(answer);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${server.address().port}`);
});
