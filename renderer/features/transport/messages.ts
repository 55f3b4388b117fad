import { defineMessages } from '../../i18n/index.js';

// How a terminal tab says which way its connection reached the instance.

export const t = defineMessages({
  en: {
    direct: 'Direct',
    jump: 'Via jump host',
    eice: 'EC2 Instance Connect Endpoint',
    ssm: 'SSM Session Manager',
    title: 'Connection: {how}',
  },
  ja: {
    direct: '直接接続',
    jump: '踏み台経由',
    eice: 'EC2 Instance Connect エンドポイント経由',
    ssm: 'SSM Session Manager 経由',
    title: '接続方法: {how}',
  },
});
