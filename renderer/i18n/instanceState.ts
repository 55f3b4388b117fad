import type { InstanceState } from '../../src/common/model/instance.js';
import { defineMessages } from './index.js';

// An instance's EC2 state in the person's language, one wording wherever a state is shown (the
// list, the candidates for an ambiguous Name). Japanese follows the AWS console.

const words: { en: Record<InstanceState, string>; ja: Record<InstanceState, string> } = {
  en: {
    pending: 'pending',
    running: 'running',
    stopping: 'stopping',
    stopped: 'stopped',
    'shutting-down': 'shutting down',
    terminated: 'terminated',
  },
  ja: {
    pending: '保留中',
    running: '実行中',
    stopping: '停止中',
    stopped: '停止済み',
    'shutting-down': 'シャットダウン中',
    terminated: '終了済み',
  },
};
const t = defineMessages(words);

/** The state's word (an unknown state, as a later EC2 may add, is shown as EC2 names it). */
export function instanceStateWord(state: string): string {
  return state in words.en ? t(state as InstanceState) : state;
}
