// The broken-servers gallery for these areas: see test/helpers/doctorGallery.ts.
import { describeGallery } from './helpers/doctorGallery.js';

describeGallery('eras-protocol');
