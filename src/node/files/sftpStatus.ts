// SFTP's status codes (draft-ietf-secsh-filexfer-02, the version OpenSSH speaks), for the two
// clients that read them: ssh2's (sftpOps.ts) and the data channel's own (sftpDataChannel.ts).
// Numbers only: importing ssh2 for its copy of them would load it before a copy needs it.

export const STATUS = {
  OK: 0,
  EOF: 1,
  NO_SUCH_FILE: 2,
  PERMISSION_DENIED: 3,
  FAILURE: 4,
  BAD_MESSAGE: 5,
  NO_CONNECTION: 6,
  CONNECTION_LOST: 7,
  OP_UNSUPPORTED: 8,
} as const;

/** The words for a status whose reply carries none. */
export const STATUS_TEXT: Record<number, string> = {
  [STATUS.OK]: 'OK',
  [STATUS.EOF]: 'End of file',
  [STATUS.NO_SUCH_FILE]: 'No such file',
  [STATUS.PERMISSION_DENIED]: 'Permission denied',
  [STATUS.FAILURE]: 'Failure',
  [STATUS.BAD_MESSAGE]: 'Bad message',
  [STATUS.NO_CONNECTION]: 'No connection',
  [STATUS.CONNECTION_LOST]: 'Connection lost',
  [STATUS.OP_UNSUPPORTED]: 'Operation unsupported',
};
