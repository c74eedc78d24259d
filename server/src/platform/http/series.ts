import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Handlers run in order as one Express layer, with Express's rules (an error, thrown or
 * rejected, skips to the error handler). Each layer of a router costs a path match and a
 * rewrite of `req.url` per request, for every route behind it: the general chain's steps are
 * one layer (app.ts).
 */
export function series(...handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    let i = 0;
    const step = (err?: unknown): void => {
      if (err !== undefined && err !== null) return next(err);
      const handler = handlers[i++];
      if (!handler) return next();
      try {
        const result = handler(req, res, step);
        if (result instanceof Promise) result.catch(next);
      } catch (e) {
        next(e);
      }
    };
    step();
  };
}
