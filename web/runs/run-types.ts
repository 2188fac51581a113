/** The shapes the run pages get from the server, read off the router so they never drift. */
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../server/trpc/router.ts';

type Outputs = inferRouterOutputs<AppRouter>;

export type RunDetail = Outputs['runs']['get'];
export type RunInfo = RunDetail['run'];
export type RunStatus = RunInfo['status'];
export type StepInfo = RunDetail['steps'][number];
export type StepStatus = StepInfo['status'];
export type TimelinePage = Outputs['runs']['timeline'];
export type TimelineEntry = TimelinePage['events'][number];
export type RunListItem = Outputs['runs']['list']['runs'][number];
export type RerunPreview = Outputs['runs']['rerunPreview'];
export type PreviewCounts = RerunPreview['counts'];
export type InboxData = Outputs['events']['list'];
