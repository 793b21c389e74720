/**
 * The OpenTelemetry SDK as the telemetry tests use it: a tracer provider with the in-memory span exporter, a meter
 * provider with a reader collected on demand, the AsyncLocalStorage context manager (so `context.with` crosses
 * `await`) and the W3C Trace Context + Baggage propagator.
 */
import { context, type Attributes } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { DataPointType, MeterProvider, MetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';

class OnDemandReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/** One histogram point: the metric's name and unit, the point's attributes, count and bucket boundaries. */
export interface HistogramPoint {
  readonly name: string;
  readonly unit: string;
  readonly attributes: Attributes;
  readonly count: number;
  readonly boundaries: readonly number[];
}

/** A fresh SDK; `spans()` are the ended spans, `histograms()` the points collected now. */
export function otelSdk() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const reader = new OnDemandReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const propagator = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  return {
    providers: { tracerProvider, meterProvider, propagator },
    spans: (): readonly ReadableSpan[] => exporter.getFinishedSpans(),
    async histograms(): Promise<readonly HistogramPoint[]> {
      const { resourceMetrics } = await reader.collect();
      const points: HistogramPoint[] = [];
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics as HistogramMetricData[]) {
          for (const point of metric.dataPoints) {
            points.push({ name: metric.descriptor.name, unit: metric.descriptor.unit, attributes: point.attributes, count: point.value.count, boundaries: point.value.buckets.boundaries });
          }
        }
      }
      return points;
    },
    /** The sum (counter) points collected now: the metric's name and unit, the point's attributes and value. */
    async sums(): Promise<readonly { readonly name: string; readonly unit: string; readonly attributes: Attributes; readonly value: number }[]> {
      const { resourceMetrics } = await reader.collect();
      const points: { name: string; unit: string; attributes: Attributes; value: number }[] = [];
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          if (metric.dataPointType !== DataPointType.SUM) continue;
          for (const point of metric.dataPoints) points.push({ name: metric.descriptor.name, unit: metric.descriptor.unit, attributes: point.attributes, value: point.value });
        }
      }
      return points;
    },
    async shutdown(): Promise<void> {
      context.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}
