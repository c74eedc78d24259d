import type { Request, Response } from 'express';
import type { AppContext } from '../../platform/context.js';
import type { LiveMessage } from './hub.js';
import { orgScope } from '../../platform/http/scope.js';

export const KEEPALIVE_MS = 20_000;

/**
 * Server-Sent Events for the site: new recognitions (`event: recognition`) and delivery changes
 * (`event: delivery`) of the administrator's organization (a superadmin: all), and a comment
 * every 20 s so proxies keep the connection open. Only this process's events are relayed.
 */
export function serveStream(ctx: AppContext, req: Request, res: Response): void {
  const scope = orgScope(req);
  const mine = (m: LiveMessage) => scope === null || m.organizationId === scope;
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    // nginx (svc_web) must not buffer the stream.
    'X-Accel-Buffering': 'no',
  });
  res.write(': connected\n\n');
  const unsubscribe = ctx.live.subscribe((message) => {
    if (!mine(message)) return;
    res.write(`event: ${message.event}\ndata: ${JSON.stringify(message.data)}\n\n`);
  });
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS).unref();
  const close = () => {
    clearInterval(keepalive);
    unsubscribe();
  };
  req.on('close', close);
  res.on('error', close);
}
