import { created, endpoint, ok, okPage, Joi } from '../../lib/http';
import { invalidField } from '../../lib/errors';
import { taskSearch, saveTask, searchTasks, taskInput, TaskInput } from '../../lib/task';

const taskId = Joi.object({ task_id: Joi.number().integer().min(1).max(2147483647) });

/** Tasks (document 1, Admin and task). */
export const taskEndpoints = [
  endpoint({
    method: 'GET',
    path: 'task/',
    summary: 'Tasks with Task_filter_type (is_completed=false: only open tasks) and pagination.',
    scope: 'task_r',
    search: taskSearch,
    response: ['task', 'next_min_id'],
    async handle({ caller, search }) {
      const page = await searchTasks(caller, search);
      return okPage('task', page);
    },
  }),

  endpoint<Record<string, never>, { task: TaskInput }>({
    method: 'POST',
    path: 'task/',
    creates: true,
    summary: 'Create a task (201), or with task.id update (complete) it.',
    scope: 'task_w',
    body: Joi.object({ task: taskInput.required() }),
    example: { task: { title: 'Photograph the new arrivals' } },
    response: ['task_id'],
    async handle({ caller, body }) {
      const saved = await saveTask(caller, body.task);
      return saved.created ? created({ task_id: saved.id }) : ok({ task_id: saved.id });
    },
  }),

  endpoint<{ task_id: number }, { task: TaskInput }>({
    method: 'POST',
    path: 'task/{task_id}/',
    summary: 'Update (complete) a task.',
    scope: 'task_w',
    params: taskId,
    body: Joi.object({ task: taskInput.required() }),
    example: { task: { is_completed: true } },
    response: ['task_id'],
    async handle({ caller, params, body }) {
      if (body.task.id !== undefined && body.task.id !== params.task_id) throw invalidField('task.id', 'task.id differs from the task_id of the path');
      const saved = await saveTask(caller, body.task, params.task_id);
      return ok({ task_id: saved.id });
    },
  }),
];
