import { email } from './email.detector';
import { iban } from './iban.detector';
import { ipAddress } from './ip-address.detector';
import { paymentCard } from './payment-card.detector';
import { phone } from './phone.detector';
import { usSsn } from './us-ssn.detector';

export const PII_DETECTORS = [email, phone, paymentCard, iban, usSsn, ipAddress] as const;

export type PiiDetectorId = (typeof PII_DETECTORS)[number]['id'];
