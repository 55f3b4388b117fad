import * as z from 'zod';

// What an error says when there is nothing to re-attach to because the process running a run or
// a series stopped (the engine killed or replaced, a tagssh command killed): the run it was
// starting is lost (`lost`, run number `run` when it belonged to a series), or the series
// stopped between two runs; `short` is how far the series got (seriesCutShort), null when none
// of its runs was saved. Each face words it (the CLI prints the engine's English; the app's run
// rows say it in the person's language).

export const SeriesStopDetailsSchema = z.object({
  seriesStop: z.object({
    lost: z.boolean(),
    run: z.number().int().min(1).nullable(),
    short: z.object({ after: z.number().int().min(1), of: z.number().int().min(1), upTo: z.boolean() }).nullable(),
  }),
});
export type SeriesStopDetails = z.infer<typeof SeriesStopDetailsSchema>['seriesStop'];
