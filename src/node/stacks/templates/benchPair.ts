// bench-pair: two instances of one type in one subnet (so one AZ) and a cluster placement group,
// a security group that lets iperf3 (5201, TCP and UDP) through between them and SSH in from one
// CIDR, Name tags <stack>-a and <stack>-b so every other TagSSH command finds them, and — with
// WithEfs=true — an EFS file system with a mount target in that subnet and its own security
// group (NFS from the pair only). Kept as data so the build ships it; `tagssh stack template
// bench-pair` prints it for use with the aws CLI.

const name = (suffix: string) => ({ 'Fn::Sub': `\${AWS::StackName}-${suffix}` });

function instance(suffix: string) {
  return {
    Type: 'AWS::EC2::Instance',
    Properties: {
      ImageId: { Ref: 'ImageId' },
      InstanceType: { Ref: 'InstanceType' },
      KeyName: { 'Fn::If': ['HasKey', { Ref: 'KeyName' }, { Ref: 'AWS::NoValue' }] },
      SubnetId: { Ref: 'SubnetId' },
      PlacementGroupName: { Ref: 'PlacementGroup' },
      SecurityGroupIds: [{ 'Fn::GetAtt': ['PairSecurityGroup', 'GroupId'] }],
      Tags: [
        { Key: 'Name', Value: name(suffix) },
        { Key: 'tagssh:stack', Value: { Ref: 'AWS::StackName' } },
      ],
    },
  };
}

/** iperf3's port (5201) open to the pair's own security group, for one protocol. */
function iperfWithinPair(protocol: 'tcp' | 'udp', description: string) {
  const pair = { 'Fn::GetAtt': ['PairSecurityGroup', 'GroupId'] };
  return {
    Type: 'AWS::EC2::SecurityGroupIngress',
    Properties: { GroupId: pair, IpProtocol: protocol, FromPort: 5201, ToPort: 5201, SourceSecurityGroupId: pair, Description: description },
  };
}

export const benchPairTemplate = {
  AWSTemplateFormatVersion: '2010-09-09',
  Description: 'TagSSH bench-pair: two instances in one AZ and placement group, iperf3 between them, optional EFS',
  Parameters: {
    InstanceType: { Type: 'String', Default: 'm5.large', Description: 'EC2 instance type of both instances' },
    ImageId: {
      Type: 'AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>',
      Default: '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-6.1-x86_64',
      Description: 'AMI (an SSM public parameter name)',
    },
    KeyName: { Type: 'String', Default: '', Description: 'EC2 key pair name (empty: none)' },
    VpcId: { Type: 'AWS::EC2::VPC::Id' },
    SubnetId: { Type: 'AWS::EC2::Subnet::Id', Description: 'one subnet, so one AZ' },
    SshCidr: { Type: 'String', AllowedPattern: '^[0-9a-fA-F:.]+/[0-9]{1,3}$', Description: 'who may SSH in' },
    WithEfs: { Type: 'String', AllowedValues: ['true', 'false'], Default: 'false' },
  },
  Conditions: {
    HasKey: { 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'KeyName' }, ''] }] },
    Efs: { 'Fn::Equals': [{ Ref: 'WithEfs' }, 'true'] },
    // An IPv6 block (it has a ":") goes into CidrIpv6: EC2 refuses it as CidrIp.
    SshFromIpv6: { 'Fn::Not': [{ 'Fn::Equals': [{ 'Fn::Select': [0, { 'Fn::Split': [':', { Ref: 'SshCidr' }] }] }, { Ref: 'SshCidr' }] }] },
  },
  Resources: {
    PlacementGroup: { Type: 'AWS::EC2::PlacementGroup', Properties: { Strategy: 'cluster' } },
    PairSecurityGroup: {
      Type: 'AWS::EC2::SecurityGroup',
      Properties: {
        GroupDescription: { 'Fn::Sub': 'TagSSH ${AWS::StackName}: SSH from one CIDR, iperf3 within the pair' },
        VpcId: { Ref: 'VpcId' },
        SecurityGroupIngress: [
          {
            IpProtocol: 'tcp',
            FromPort: 22,
            ToPort: 22,
            CidrIp: { 'Fn::If': ['SshFromIpv6', { Ref: 'AWS::NoValue' }, { Ref: 'SshCidr' }] },
            CidrIpv6: { 'Fn::If': ['SshFromIpv6', { Ref: 'SshCidr' }, { Ref: 'AWS::NoValue' }] },
            Description: 'SSH (tagssh stack)',
          },
        ],
        Tags: [{ Key: 'Name', Value: name('pair') }],
      },
    },
    IperfTcp: iperfWithinPair('tcp', 'iperf3 within the pair'),
    IperfUdp: iperfWithinPair('udp', 'iperf3 -u within the pair'),
    InstanceA: instance('a'),
    InstanceB: instance('b'),
    EfsSecurityGroup: {
      Type: 'AWS::EC2::SecurityGroup',
      Condition: 'Efs',
      Properties: {
        GroupDescription: { 'Fn::Sub': 'TagSSH ${AWS::StackName}: NFS from the pair' },
        VpcId: { Ref: 'VpcId' },
        SecurityGroupIngress: [{ IpProtocol: 'tcp', FromPort: 2049, ToPort: 2049, SourceSecurityGroupId: { 'Fn::GetAtt': ['PairSecurityGroup', 'GroupId'] } }],
      },
    },
    FileSystem: {
      Type: 'AWS::EFS::FileSystem',
      Condition: 'Efs',
      Properties: { Encrypted: true, FileSystemTags: [{ Key: 'Name', Value: name('efs') }] },
    },
    MountTarget: {
      Type: 'AWS::EFS::MountTarget',
      Condition: 'Efs',
      Properties: { FileSystemId: { Ref: 'FileSystem' }, SubnetId: { Ref: 'SubnetId' }, SecurityGroups: [{ 'Fn::GetAtt': ['EfsSecurityGroup', 'GroupId'] }] },
    },
  },
  Outputs: {
    InstanceA: { Value: { Ref: 'InstanceA' } },
    InstanceB: { Value: { Ref: 'InstanceB' } },
    FileSystemId: { Condition: 'Efs', Value: { Ref: 'FileSystem' }, Description: 'mount with: sudo mount -t efs <id>:/ /mnt/efs (amazon-efs-utils)' },
  },
} as const;
