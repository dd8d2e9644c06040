/** The known-devices facet of the {@link Store}: the browsers an account signed in from. */

export interface RememberDeviceInput {
  userId: string
  /** SHA-256 of the random id in the browser's device cookie (never the id). */
  deviceHash: string
  now: Date
  /** The most devices kept per user. */
  keep: number
}

/** Known devices. */
export interface DeviceStore {
  /**
   * Records that the user signed in from a device at `now`, as its last sign-in there. Answers
   * `true` when the device was new to the user; of concurrent calls for one new device exactly one
   * gets `true`. A new device beyond `keep` makes the user's least recently seen ones forgotten
   * (a client that drops its cookies adds one device per sign-in).
   */
  rememberDevice(input: RememberDeviceInput): Promise<boolean>
  /** Whether the user has signed in from the device (by hash) and it has not been forgotten since. */
  knowsDevice(userId: string, deviceHash: string): Promise<boolean>
}
