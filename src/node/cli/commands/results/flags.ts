// What `tagssh results`'s flags are once commander has read them: the shape its registration and
// its action share, kept apart from both so that the action never imports its command back.

export interface ResultsFlags {
  preset?: string;
  compare?: string[];
  baseline?: string;
  format?: string;
  show?: string;
  history?: string;
  reparse?: boolean;
  delete?: string;
  /** false with --no-bom: CSV without the UTF-8 byte order mark. */
  bom?: boolean;
}

export interface HistoryFlags {
  preset?: string;
  metric?: string;
  baseline?: string;
  format?: string;
}

export interface ExportFlags {
  format?: string;
  preset?: string;
  out?: string;
  owner?: string;
  bom?: boolean;
}

export interface ReportFlags {
  lang?: string;
  out?: string;
}
