import Fastify from 'fastify';
import { registerJsonBodyParser, type TextBodyRouteConfig } from './json-body';

describe('registerJsonBodyParser', () => {
  const app = Fastify({ bodyLimit: 1024 });
  registerJsonBodyParser(app);
  const csvRoute: TextBodyRouteConfig = { textBody: true, bodyLimit: 4096 };
  app.post('/json', async (req) => ({ body: req.body }));
  app.post('/csv', { config: csvRoute }, async (req) => ({ body: req.body }));
  app.setErrorHandler(
    (err: { statusCode?: number; message: string }, _req, reply) =>
      void reply.status(err.statusCode ?? 400).send({ error: err.message }),
  );
  afterAll(() => app.close());

  const post = (url: string, payload: string, contentType: string) =>
    app.inject({ method: 'POST', url, payload, headers: { 'content-type': contentType } });

  it('reads every body as JSON, whatever its type, on ordinary routes', async () => {
    expect((await post('/json', '{"a":1}', 'application/x-www-form-urlencoded')).json()).toEqual({ body: { a: 1 } });
    expect((await post('/json', '{"a":1}', 'text/plain')).json()).toEqual({ body: { a: 1 } });
    expect((await post('/json', 'a,b', 'text/csv')).statusCode).toBe(400);
  });

  it('hands text/csv and text/plain to a text route as a string, and JSON as JSON', async () => {
    expect((await post('/csv', 'prompt,label\nx,1\n', 'text/csv; charset=utf-8')).json()).toEqual({
      body: 'prompt,label\nx,1\n',
    });
    expect((await post('/csv', 'x,1', 'text/plain')).json()).toEqual({ body: 'x,1' });
    expect((await post('/csv', '{"a":1}', 'application/json')).json()).toEqual({ body: { a: 1 } });
  });

  it("applies a route's own body limit in place of the global one", async () => {
    expect((await post('/csv', 'x'.repeat(3000), 'text/csv')).statusCode).toBe(200);
    expect((await post('/csv', 'x'.repeat(5000), 'text/csv')).statusCode).toBe(413);
    expect((await post('/json', JSON.stringify({ a: 'x'.repeat(2000) }), 'application/json')).statusCode).toBe(413);
  });
});
