import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import express from 'express';
import { queues, QueueName, queueNames } from '../queue';
import { readiness } from './health';
import { allMetrics, processRegistry } from '../metrics';
import { metricsRegistry } from './metrics';
import { config } from '../../config';
import { log } from '../log';
import { operatorAuth, operatorPasswordProblem, sameOriginWrites } from './operator-auth';

/** Liveness and readiness (open, no data), mounted at /health. */
export function healthRouter(): express.Router {
  const router = express.Router();
  router.get('/live', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/ready', async (_req, res) => {
    const state = await readiness();
    if (!state.ready) res.set('Retry-After', '5');
    res.status(state.ready ? 200 : 503).json(state);
  });
  return router;
}

/**
 * Operator pages beside the API, mounted at /operator: the queue dashboard and Prometheus
 * metrics (behind the operator credentials).
 */
export function operatorRouter(): express.Router {
  const problem = operatorPasswordProblem(config());
  // Said once at start-up, where an operator looks: the pages answer 503 until it is fixed.
  if (problem && config().env === 'production') log.error(problem);
  const router = express.Router();
  // Before the credentials: a forged write is refused whether or not the browser holds them.
  router.use(sameOriginWrites);
  router.get('/metrics', operatorAuth, async (_req, res) => {
    res.set('Content-Type', metricsRegistry.contentType).send(await allMetrics(metricsRegistry, processRegistry));
  });

  const board = new ExpressAdapter();
  board.setBasePath('/operator/queues');
  createBullBoard({ queues: (Object.keys(queueNames) as QueueName[]).map((name) => new BullMQAdapter(queues().get(name))), serverAdapter: board });
  router.use('/queues', operatorAuth, board.getRouter() as express.Router);
  // The README and the settings name the area /operator/: an operator who opens it lands on the dashboard.
  router.get('/', operatorAuth, (req, res) => {
    res.redirect(302, `${req.baseUrl}/queues/`);
  });
  return router;
}
