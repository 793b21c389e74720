/**
 * The tracer, the duration histogram and the propagator one side (client or server) records with, taken once from
 * the given or the global OpenTelemetry providers.
 */
import { metrics, propagation, trace, type Histogram, type MeterProvider, type TextMapPropagator, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { DURATION_BUCKETS_S } from './conventions.js';

/** The instrumentation scope name of every tracer and meter of this package. */
export const SCOPE_NAME = '@switchboard/otel';
/** The instrumentation scope version (this package's version). */
export const SCOPE_VERSION = '0.1.0';

/** Where telemetry goes (options of `serverTelemetry` and `clientTelemetry`). */
export interface TelemetryProviders {
  /** The tracer provider spans are made with. @default the global one (`trace.getTracerProvider()`) */
  readonly tracerProvider?: TracerProvider | undefined;
  /** The meter provider the duration histograms are made with. @default the global one (`metrics.getMeterProvider()`) */
  readonly meterProvider?: MeterProvider | undefined;
  /**
   * The propagator that writes and reads the trace context in `params._meta`. @default the global one
   * (`propagation`; the SDK's default is W3C Trace Context + Baggage)
   */
  readonly propagator?: TextMapPropagator | undefined;
}

/** What one side records with. */
export interface Instruments {
  readonly tracer: Tracer;
  readonly propagator: TextMapPropagator;
  /** A histogram in seconds with the advised buckets. */
  readonly histogram: (name: string, description: string) => Histogram;
}

/** The instruments of `providers` (see {@link TelemetryProviders} for the defaults). */
export function instrumentsOf(providers: TelemetryProviders): Instruments {
  const tracer = (providers.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE_NAME, SCOPE_VERSION);
  const meter = (providers.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE_NAME, SCOPE_VERSION);
  return {
    tracer,
    propagator: providers.propagator ?? propagation,
    histogram: (name, description) => meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: [...DURATION_BUCKETS_S] } }),
  };
}
