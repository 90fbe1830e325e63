#!/usr/bin/env node
// The fault suite's model vendor: Anthropic's Messages API on 127.0.0.1, as JSON or SSE. A model
// named `slow` streams its answer over 3 s; any other streams at once. Prints its URL on stdout.
const { createServer } = require('node:http');

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    const text = 'The quarterly figures look steady and the board meeting is on Thursday.';
    const message = {
      id: 'msg_fault',
      type: 'message',
      role: 'assistant',
      model: body.model,
      stop_sequence: null,
      usage: { input_tokens: 9, output_tokens: 14 },
    };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...message, content: [{ type: 'text', text }], stop_reason: 'end_turn' }));
      return;
    }
    const parts = text.match(/.{1,8}/g);
    const events = [
      ['message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null } }],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
      ...parts.map((t) => [
        'content_block_delta',
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } },
      ]),
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      [
        'message_delta',
        {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: 14 },
        },
      ],
      ['message_stop', { type: 'message_stop' }],
    ];
    const gap = body.model === 'slow' ? Math.round(3000 / events.length) : 0;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let i = 0;
    const next = () => {
      if (res.destroyed) return;
      if (i >= events.length) return void res.end();
      const [event, data] = events[i++];
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      if (gap) setTimeout(next, gap);
      else setImmediate(next);
    };
    next();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`));
