import React, { useState } from "react";

interface Props {
  label: string;
  onPay: () => Promise<void>;
}

/** The pay button; disables itself while paying. */
export function CheckoutButton({ label, onPay }: Props) {
  const [busy, setBusy] = useState(false);
  return (
    <button disabled={busy} onClick={async () => { setBusy(true); await onPay(); setBusy(false); }}>
      {label}
    </button>
  );
}

export const Spinner = () => <span className="spinner" />;

export class Panel extends React.Component<Props> {
  render() {
    return <div>{this.props.label}</div>;
  }
}
