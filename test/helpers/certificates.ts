// A certificate authority made by the test, and server certificates it signs: a private gateway's,
// or a TLS-inspecting proxy's, that only a CA the user names makes trusted. Keys are Node's own
// (fast, native); node-forge writes the X.509 certificates Node cannot.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface KeyAndCertificate {
  /** PEM */
  key: string;
  /** PEM */
  cert: string;
}

function keyPair(): {
  key: string;
  forgeKey: forge.pki.rsa.PrivateKey;
  publicKey: forge.pki.rsa.PublicKey;
} {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const forgeKey = forge.pki.privateKeyFromPem(key);
  return { key, forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e) };
}

function certificate(
  subject: string,
  publicKey: forge.pki.rsa.PublicKey,
  extensions: object[],
  expired = false,
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = `01${randomBytes(8).toString('hex')}`;
  // An expired one ended yesterday, after a day's validity.
  const shift = expired ? -2 * 24 * 3600_000 : 0;
  cert.validity.notBefore = new Date(Date.now() - 60_000 + shift);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000 + shift);
  cert.setSubject([{ name: 'commonName', value: subject }]);
  cert.setExtensions(extensions);
  return cert;
}

/** A CA of the test's own, trusted by nothing until it is named. */
export function makeCa(name = 'sms-send test CA'): KeyAndCertificate & {
  sign: (hosts: string[], options?: { expired?: boolean }) => KeyAndCertificate;
} {
  const { key, forgeKey, publicKey } = keyPair();
  const cert = certificate(name, publicKey, [
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
  ]);
  cert.setIssuer(cert.subject.attributes);
  cert.sign(forgeKey, forge.md.sha256.create());
  return {
    key,
    cert: forge.pki.certificateToPem(cert),
    /**
     * A server certificate for these host names and IP addresses, signed by this CA; with
     * `expired`, one whose validity ended yesterday.
     */
    sign(hosts: string[], options: { expired?: boolean } = {}): KeyAndCertificate {
      const leaf = keyPair();
      const altNames = hosts.map((host) =>
        /^[\d.]+$|:/.test(host) ? { type: 7, ip: host } : { type: 2, value: host },
      );
      const server = certificate(
        hosts[0]!,
        leaf.publicKey,
        [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
          { name: 'extKeyUsage', serverAuth: true },
          { name: 'subjectAltName', altNames },
        ],
        options.expired,
      );
      server.setIssuer(cert.subject.attributes);
      server.sign(forgeKey, forge.md.sha256.create());
      return { key: leaf.key, cert: forge.pki.certificateToPem(server) };
    },
  };
}
