// AWS's published EC2 Serial Console SSH endpoints and their host-key fingerprints, one per
// region: the table "EC2 Serial Console endpoints and fingerprints" of the EC2 User Guide page
// "Connect to the EC2 Serial Console". A host key is trusted only when its SHA256 fingerprint is
// the one listed here for the instance's region; a region missing here is refused, never trusted
// on first use. Data only (no Node, no DOM): the engine checks, every face words the result.
//
// Source: https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/connect-to-serial-console.html#sc-endpoints-and-fingerprints
// Retrieved: 2026-12-02 (36 regions). Regions AWS lists elsewhere but not in that table on that
// date (so refused here until the table names them): ap-east-2, ap-southeast-6, me-west-1,
// sa-west-1, eusc-de-east-1 and the ISO partitions. To update: copy the table again, keep the
// three columns as published, change the date above.

export const SERIAL_CONSOLE_FINGERPRINTS_SOURCE =
  'https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/connect-to-serial-console.html#sc-endpoints-and-fingerprints';
export const SERIAL_CONSOLE_FINGERPRINTS_RETRIEVED = '2026-12-02';

/** [region, endpoint host, SHA256 fingerprint], as published (SSH on port 22). */
export const SERIAL_CONSOLE_ENDPOINTS: ReadonlyArray<readonly [region: string, host: string, fingerprint: string]> = [
  ['af-south-1', 'ec2-serial-console.af-south-1.api.aws', 'SHA256:RMWWZ2fVePeJUqzjO5jL2KIgXsczoHlz21Ed00biiWI'],
  ['ap-east-1', 'ec2-serial-console.ap-east-1.api.aws', 'SHA256:T0Q1lpiXxChoZHplnAkjbP7tkm2xXViC9bJFsjYnifk'],
  ['ap-northeast-1', 'serial-console.ec2-instance-connect.ap-northeast-1.aws', 'SHA256:RQfsDCZTOfQawewTRDV1t9Em/HMrFQe+CRlIOT5um4k'],
  ['ap-northeast-2', 'serial-console.ec2-instance-connect.ap-northeast-2.aws', 'SHA256:FoqWXNX+DZ++GuNTztg9PK49WYMqBX+FrcZM2dSrqrI'],
  ['ap-northeast-3', 'ec2-serial-console.ap-northeast-3.api.aws', 'SHA256:Am0/jiBKBnBuFnHr9aXsgEV3G8Tu/vVHFXE/3UcyjsQ'],
  ['ap-south-1', 'serial-console.ec2-instance-connect.ap-south-1.aws', 'SHA256:oBLXcYmklqHHEbliARxEgH8IsO51rezTPiSM35BsU40'],
  ['ap-south-2', 'ec2-serial-console.ap-south-2.api.aws', 'SHA256:WJgPBSwV4/shN+OPITValoewAuYj15DVW845JEhDKRs'],
  ['ap-southeast-1', 'serial-console.ec2-instance-connect.ap-southeast-1.aws', 'SHA256:PLFNn7WnCQDHx3qmwLu1Gy/O8TUX7LQgZuaC6L45CoY'],
  ['ap-southeast-2', 'serial-console.ec2-instance-connect.ap-southeast-2.aws', 'SHA256:yFvMwUK9lEUQjQTRoXXzuN+cW9/VSe9W984Cf5Tgzo4'],
  ['ap-southeast-3', 'ec2-serial-console.ap-southeast-3.api.aws', 'SHA256:5ZwgrCh+lfns32XITqL/4O0zIfbx4bZgsYFqy3o8mIk'],
  ['ap-southeast-4', 'ec2-serial-console.ap-southeast-4.api.aws', 'SHA256:Avaq27hFgLvjn5gTSShZ0oV7h90p0GG46wfOeT6ZJvM'],
  ['ap-southeast-5', 'ec2-serial-console.ap-southeast-5.api.aws', 'SHA256:cQXTHQMRcqRdIjmAGoAMBSExeoRobYyRwT67yTjnEiA'],
  ['ap-southeast-7', 'ec2-serial-console.ap-southeast-7.api.aws', 'SHA256:KCAZiRYrR1Q2lqsg7vTwixWmvc2wmjVT31XRgSdEfDY'],
  ['ca-central-1', 'serial-console.ec2-instance-connect.ca-central-1.aws', 'SHA256:P2O2jOZwmpMwkpO6YW738FIOTHdUTyEv2gczYMMO7s4'],
  ['ca-west-1', 'ec2-serial-console.ca-west-1.api.aws', 'SHA256:s3rc8lI2xhbhr3iedjJNxGAFLPGOLjx7IxxXrGckk6Q'],
  ['cn-north-1', 'ec2-serial-console.cn-north-1.api.amazonwebservices.com.cn', 'SHA256:2gHVFy4H7uU3+WaFUxD28v/ggMeqjvSlgngpgLgGT+Y'],
  ['cn-northwest-1', 'ec2-serial-console.cn-northwest-1.api.amazonwebservices.com.cn', 'SHA256:TdgrNZkiQOdVfYEBUhO4SzUA09VWI5rYOZGTogpwmiM'],
  ['eu-central-1', 'serial-console.ec2-instance-connect.eu-central-1.aws', 'SHA256:aCMFS/yIcOdOlkXvOl8AmZ1Toe+bBnrJJ3Fy0k0De2c'],
  ['eu-central-2', 'ec2-serial-console.eu-central-2.api.aws', 'SHA256:8Ppx2mBMf6WdCw0NUlzKfwM4/IfRz4OaXFutQXWp6mk'],
  ['eu-north-1', 'serial-console.ec2-instance-connect.eu-north-1.aws', 'SHA256:tkGFFUVUDvocDiGSS3Cu8Gdl6w2uI32EPNpKFKLwX84'],
  ['eu-south-1', 'ec2-serial-console.eu-south-1.api.aws', 'SHA256:lC0kOVJnpgFyBVrxn0A7n99ecLbXSX95cuuS7X7QK30'],
  ['eu-south-2', 'ec2-serial-console.eu-south-2.api.aws', 'SHA256:GoCW2DFRlu669QNxqFxEcsR6fZUz/4F4n7T45ZcwoEc'],
  ['eu-west-1', 'serial-console.ec2-instance-connect.eu-west-1.aws', 'SHA256:h2AaGAWO4Hathhtm6ezs3Bj7udgUxi2qTrHjZAwCW6E'],
  ['eu-west-2', 'serial-console.ec2-instance-connect.eu-west-2.aws', 'SHA256:a69rd5CE/AEG4Amm53I6lkD1ZPvS/BCV3tTPW2RnJg8'],
  ['eu-west-3', 'serial-console.ec2-instance-connect.eu-west-3.aws', 'SHA256:q8ldnAf9pymeNe8BnFVngY3RPAr/kxswJUzfrlxeEWs'],
  ['il-central-1', 'ec2-serial-console.il-central-1.api.aws', 'SHA256:JR6q8v6kNNPi8+QSFQ4dj5dimNmZPTgwgsM1SNvtYyU'],
  ['me-central-1', 'ec2-serial-console.me-central-1.api.aws', 'SHA256:zpb5duKiBZ+l0dFwPeyykB4MPBYhI/XzXNeFSDKBvLE'],
  ['me-south-1', 'ec2-serial-console.me-south-1.api.aws', 'SHA256:nPjLLKHu2QnLdUq2kVArsoK5xvPJOMRJKCBzCDqC3k8'],
  ['mx-central-1', 'ec2-serial-console.mx-central-1.api.aws', 'SHA256:BCuVl13iQNk+CcVnt18Ef4p2ZHUrBBAOxlFetB32GS0'],
  ['sa-east-1', 'serial-console.ec2-instance-connect.sa-east-1.aws', 'SHA256:rd2+/32Ognjew1yVIemENaQzC+Botbih62OqAPDq1dI'],
  ['us-east-1', 'serial-console.ec2-instance-connect.us-east-1.aws', 'SHA256:dXwn5ma/xadVMeBZGEru5l2gx+yI5LDiJaLUcz0FMmw'],
  ['us-east-2', 'serial-console.ec2-instance-connect.us-east-2.aws', 'SHA256:EhwPkTzRtTY7TRSzz26XbB0/HvV9jRM7mCZN0xw/d/0'],
  ['us-gov-east-1', 'serial-console.ec2-instance-connect.us-gov-east-1.amazonaws.com', 'SHA256:tIwe19GWsoyLClrtvu38YEEh+DHIkqnDcZnmtebvF28'],
  ['us-gov-west-1', 'serial-console.ec2-instance-connect.us-gov-west-1.amazonaws.com', 'SHA256:kfOFRWLaOZfB+utbd3bRf8OlPf8nGO2YZLqXZiIw5DQ'],
  ['us-west-1', 'serial-console.ec2-instance-connect.us-west-1.aws', 'SHA256:OHldlcMET8u7QLSX3jmRTRAPFHVtqbyoLZBMUCqiH3Y'],
  ['us-west-2', 'serial-console.ec2-instance-connect.us-west-2.aws', 'SHA256:EMCIe23TqKaBI6yGHainqZcMwqNkDhhAVHa1O2JxVUc'],
];
