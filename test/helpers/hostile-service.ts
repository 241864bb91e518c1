/**
 * A hostile prompt service for the security tests: a plain HTTP server on a loopback port that
 * answers the list and get endpoints with whatever JSON a test crafts (any field, any depth), and
 * records the requests it got. Registered with `disposables` so it is closed after the file.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostileAnswers {
  /** Body of `POST /v1/prompts/get` for a `package_name`: an object (sent as JSON) or raw text. */
  get?: (packageName: string, authorization: string | undefined) => unknown;
  /** Body of `GET /v1/prompts` (the query's cursor is passed). */
  list?: (cursor: string | null) => unknown;
}

export interface HostileService {
  url: string;
  /** `METHOD path` of every request, in order. */
  requests: string[];
  answers: HostileAnswers;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

export async function startHostileService(answers: HostileAnswers = {}): Promise<HostileService> {
  const requests: string[] = [];
  const service: HostileService = { url: '', requests, answers, close: async () => {} };
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    const send = (status: number, body: unknown) => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(text);
    };
    try {
      if (request.method === 'POST' && url.pathname === '/v1/prompts/get' && service.answers.get) {
        const { package_name: name } = JSON.parse(await readBody(request)) as { package_name: string };
        send(200, service.answers.get(name, request.headers.authorization));
      } else if (request.method === 'GET' && url.pathname === '/v1/prompts' && service.answers.list) {
        send(200, service.answers.list(url.searchParams.get('cursor')));
      } else {
        send(404, { error: { code: 'not_found', message: 'not here' } });
      }
    } catch (error) {
      send(500, { error: { code: 'internal', message: String(error) } });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  service.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  service.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return service;
}
