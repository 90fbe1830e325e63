import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  CreateScannerCommand,
  ListPackagesCommand,
  ListScannersCommand,
  ListScannerVersionsCommand,
  ScannerRefCommand,
  ScannerRpc,
  ScannerVersionRefCommand,
  UpdateScannerCommand,
  UpdateScannerVersionCommand,
} from '@bastion/contracts';
import { Handles } from '@bastion/messaging';
import { ScannerService } from './scanner.service';

@Controller()
export class ScannerController {
  constructor(private readonly scanners: ScannerService) {}

  @Handles(ScannerRpc.create)
  create(@Payload() cmd: CreateScannerCommand) {
    return this.scanners.create(cmd);
  }

  @Handles(ScannerRpc.list)
  list(@Payload() cmd: ListScannersCommand) {
    return this.scanners.list(cmd);
  }

  @Handles(ScannerRpc.get)
  get(@Payload() cmd: ScannerRefCommand) {
    return this.scanners.get(cmd);
  }

  @Handles(ScannerRpc.update)
  update(@Payload() cmd: UpdateScannerCommand) {
    return this.scanners.update(cmd);
  }

  @Handles(ScannerRpc.delete)
  delete(@Payload() cmd: ScannerRefCommand) {
    return this.scanners.delete(cmd);
  }

  @Handles(ScannerRpc.listVersions)
  listVersions(@Payload() cmd: ListScannerVersionsCommand) {
    return this.scanners.listVersions(cmd);
  }

  @Handles(ScannerRpc.getVersion)
  getVersion(@Payload() cmd: ScannerVersionRefCommand) {
    return this.scanners.getVersion(cmd);
  }

  @Handles(ScannerRpc.updateVersion)
  updateVersion(@Payload() cmd: UpdateScannerVersionCommand) {
    return this.scanners.updateVersion(cmd);
  }

  @Handles(ScannerRpc.listPackages)
  listPackages(@Payload() cmd: ListPackagesCommand) {
    return this.scanners.listPackages(cmd);
  }
}
