/**
 * lib/task, the one way in from other domains: tasks.
 * scripts/check-cycles.ts refuses imports of this folder's other files from outside it;
 * README.md beside this file has the decisions.
 */
export { taskSearch } from './task.repository';
export { createTaskOnce, insertTask, insertTaskOnce, saveTask, searchTasks } from './task.service';
export { taskInput } from './task.type';
export type { TaskInput } from './task.type';
